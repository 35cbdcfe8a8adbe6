/** `orrery compact ID`: compact a session now (trigger `manual`). */
import type { Command } from 'commander';
import { createEventsCompactionConfig } from '../compaction/config.js';
import { type CompactionReport, Compactor } from '../runtime/compaction/compactor.js';
import {
  addStoreOptions,
  integerOption,
  nonEmpty,
  type StoreFlags,
  withStore,
  writeJson,
} from './common.js';
import type { CliIo } from './io.js';
import { explainTrigger, measureNextRequest } from './request-size.js';
import { resolveSessionKey } from './session-lookup.js';
import { requireSession } from './sessions.js';
import { creditOfReport, describeCredit } from './summarizer-label.js';
import { createSummarizer } from './summarizer-option.js';

export function registerCompact(program: Command, io: CliIo): void {
  addStoreOptions(
    program
      .command('compact')
      .description('summarize everything after the checkpoint except the retained tail, now')
      .argument('<id>', 'session id', nonEmpty('session id'))
      .option('--summarizer <digest|model-id>', 'digest (offline) or a model id', 'digest')
      .option(
        '--retention <events>',
        'events kept verbatim (default: the configured retention)',
        integerOption('--retention'),
      )
      .option('--json', 'print the compaction report as JSON'),
  )
    .addHelpText(
      'after',
      '\nExamples:\n  orrery compact 7f3a…\n  orrery compact 7f3a… --summarizer google:gemini-2.5-flash --retention 4',
    )
    .action(
      async (
        sessionId: string,
        flags: StoreFlags & { summarizer: string; retention?: number; json?: boolean },
      ) => {
        // The summarizer and the settings are checked before the store is opened.
        const choice = await createSummarizer({ value: flags.summarizer, env: io.env });
        const { summarizer, fallbackSummarizer } = choice;
        const config = createEventsCompactionConfig({
          env: io.env,
          enabled: true,
          eventRetentionSize: flags.retention,
          summarizer,
        }) ?? {
          summarizer,
        };
        await withStore(io, { ...flags, existing: true }, async (service) => {
          const key = await resolveSessionKey(
            service,
            { appName: flags.app, userId: flags.user, sessionId },
            { prefix: true },
          );
          const session = await requireSession(service, key);
          const compactor = new Compactor({
            sessionService: service,
            config,
            summarizer,
            fallbackSummarizer,
          });
          // Not while an invocation runs on the session: the view is read and compacted under
          // its lease (SessionBusyError after 30 s; a lost lease stops the compaction).
          const lease = await service.acquireLease?.(key);
          let before: Awaited<ReturnType<typeof measureNextRequest>>;
          let report: CompactionReport;
          try {
            before = await measureNextRequest({ service, key, state: session.state });
            report = await compactor.compact({
              ...key,
              trigger: 'manual',
              force: true,
              retention: flags.retention === undefined ? undefined : { events: flags.retention },
              // Counted in tokensAfter as `orrery view` counts it.
              overheadTokens: before.size.overheadTokens,
              stored: before.stored,
              signal: lease?.signal,
            });
          } finally {
            await lease?.release();
          }
          const after =
            report.outcome === 'compacted'
              ? await measureNextRequest({ service, key, state: session.state })
              : before;
          const credit = creditOfReport(report, summarizer.name);
          if (flags.json) {
            const { event: _event, error: _error, ...rest } = report;
            return writeJson(io, {
              ...rest,
              ...(credit?.fallback ? { fallback: credit.fallback } : {}),
              requestTokens: { before: before.size.tokens, after: after.size.tokens },
            });
          }
          if (report.outcome === 'compacted') {
            const tokens = (value: number) => value.toLocaleString('en-US');
            const counted =
              before.systemInstruction === undefined ? 'contents' : 'contents + system instruction';
            io.stdout(
              `compacted ${sessionId}: seq ${report.startSeq}-${report.endSeq} by ${credit ? describeCredit(credit) : summarizer.name} in ${Math.round(report.durationMs)} ms; next request ~${tokens(before.size.tokens)} -> ~${tokens(after.size.tokens)} tokens (estimated: ${counted}, as orrery view counts)\n`,
            );
            const trigger = explainTrigger(before.size);
            if (trigger) io.stdout(`(before, ${trigger})\n`);
            return;
          }
          io.stdout(`not compacted (${report.outcome}): ${report.reason ?? 'nothing to do'}\n`);
          if (report.outcome === 'failed') throw report.error ?? new Error(report.reason);
        });
      },
    );
}
