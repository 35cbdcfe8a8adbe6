/** `orrery compact ID`: compact a session now (trigger `manual`). */
import type { Command } from 'commander';
import { createEventsCompactionConfig } from '../compaction/config.js';
import { type CompactionReport, Compactor } from '../runtime/compactor.js';
import { addStoreOptions, integerOption, type StoreFlags, withStore, writeJson } from './common.js';
import type { CliIo } from './io.js';
import { requireSession } from './sessions.js';
import { createSummarizer } from './summarizer-option.js';

export function registerCompact(program: Command, io: CliIo): void {
  addStoreOptions(
    program
      .command('compact')
      .description('summarize everything after the checkpoint except the retained tail, now')
      .argument('<id>', 'session id')
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
        const summarizer = await createSummarizer({ value: flags.summarizer, env: io.env });
        const config = createEventsCompactionConfig({
          env: io.env,
          enabled: true,
          eventRetentionSize: flags.retention,
          summarizer,
        }) ?? {
          summarizer,
        };
        await withStore(io, { ...flags, existing: true }, async (service) => {
          const key = { appName: flags.app, userId: flags.user, sessionId };
          await requireSession(service, key);
          const compactor = new Compactor({ sessionService: service, config, summarizer });
          // Not while an invocation runs on the session: the view is read and compacted under
          // its lease (SessionBusyError after 30 s; a lost lease stops the compaction).
          const lease = await service.acquireLease?.(key);
          let report: CompactionReport;
          try {
            report = await compactor.compact({
              ...key,
              trigger: 'manual',
              force: true,
              retention: flags.retention === undefined ? undefined : { events: flags.retention },
              signal: lease?.signal,
            });
          } finally {
            await lease?.release();
          }
          if (flags.json) {
            const { event: _event, error: _error, ...rest } = report;
            return writeJson(io, rest);
          }
          if (report.outcome === 'compacted') {
            io.stdout(
              `compacted ${sessionId}: seq ${report.startSeq}-${report.endSeq}, tokens ${report.tokensBefore.toLocaleString('en-US')} -> ${(report.tokensAfter ?? 0).toLocaleString('en-US')} (${summarizer.name}, ${Math.round(report.durationMs)} ms)\n`,
            );
            return;
          }
          io.stdout(`not compacted (${report.outcome}): ${report.reason ?? 'nothing to do'}\n`);
          if (report.outcome === 'failed') throw report.error ?? new Error(report.reason);
        });
      },
    );
}
