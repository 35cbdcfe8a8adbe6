/** `orrery view ID`: exactly what the next model request would hold. */
import type { Command } from 'commander';
import {
  addStoreOptions,
  integerOption,
  nonEmpty,
  type StoreFlags,
  withStore,
  writeJson,
} from './common.js';
import type { CliIo } from './io.js';
import { plural } from './plural.js';
import { renderContent } from './render-event.js';
import { explainTrigger, measureNextRequest } from './request-size.js';
import { resolveSessionKey } from './session-lookup.js';
import { requireSession } from './sessions.js';

export function registerView(program: Command, io: CliIo): void {
  addStoreOptions(
    program
      .command('view')
      .description('print the contents the next model request would hold (summary + tail)')
      .argument('<id>', 'session id', nonEmpty('session id'))
      .option('--json', 'print the provider-ready contents as JSON')
      .option(
        '--width <chars>',
        'characters of each content line',
        integerOption('--width', 10),
        160,
      ),
  )
    .addHelpText(
      'after',
      "\nExamples:\n  orrery view 7f3a…\n  orrery view 7f3a… --json | jq '.contents | length'",
    )
    .action(async (sessionId: string, flags: StoreFlags & { json?: boolean; width: number }) => {
      await withStore(io, { ...flags, existing: true }, async (service) => {
        const key = await resolveSessionKey(
          service,
          { appName: flags.app, userId: flags.user, sessionId },
          { prefix: true },
        );
        const session = await requireSession(service, key);
        // Assembled as the runtime does, orphan calls restored from storage included.
        const { stored, view, systemInstruction, size } = await measureNextRequest({
          service,
          key,
          state: session.state,
        });
        if (flags.json) {
          return writeJson(io, {
            systemInstruction,
            contents: view.contents,
            checkpointSeq: stored.checkpoint?.seq,
            tailEvents: stored.tail.length,
            estimatedTokens: size.tokens,
            trigger: {
              tokens: size.trigger.tokens,
              basis: size.trigger.basis,
              ...(size.trigger.usageSeq === undefined
                ? {}
                : { usageSeq: size.trigger.usageSeq, reportedTokens: size.trigger.reportedTokens }),
            },
            warnings: view.warnings,
          });
        }
        const width = flags.width;
        const covered = stored.checkpoint
          ? `summary of seq ${stored.checkpoint.actions.compaction.startSeq}-${stored.checkpoint.actions.compaction.endSeq} + `
          : '';
        const counted =
          systemInstruction === undefined ? 'contents' : 'contents + system instruction';
        io.stdout(
          `next request for ${sessionId}: ${covered}${plural(stored.tail.length, 'event')} as ${plural(view.contents.length, 'content')}, ~${size.tokens.toLocaleString('en-US')} tokens (estimated: ${counted})\n`,
        );
        const trigger = explainTrigger(size);
        if (trigger) io.stdout(`(${trigger})\n`);
        if (systemInstruction !== undefined)
          io.stdout(
            `[system] ${renderContent({ role: 'user', parts: [{ text: systemInstruction }] }, width)}\n`,
          );
        for (const [index, content] of view.contents.entries()) {
          io.stdout(`[${index}] ${content.role}: ${renderContent(content, width)}\n`);
        }
        for (const warning of view.warnings) io.stderr(`warning: ${warning.message}\n`);
      });
    });
}
