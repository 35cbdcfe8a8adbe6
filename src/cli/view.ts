/** `orrery view ID`: exactly what the next model request would hold. */
import type { Command } from 'commander';
import { estimateContentsTokens } from '../compaction/token-estimate.js';
import { estimateRequestOverhead } from '../runtime/context-guard.js';
import { OrphanCallRestorer } from '../runtime/restore-calls.js';
import { addStoreOptions, integerOption, type StoreFlags, withStore, writeJson } from './common.js';
import { INSTRUCTION_STATE_KEY } from './import-session.js';
import type { CliIo } from './io.js';
import { renderContent } from './render-event.js';
import { requireSession } from './sessions.js';

export function registerView(program: Command, io: CliIo): void {
  addStoreOptions(
    program
      .command('view')
      .description('print the contents the next model request would hold (summary + tail)')
      .argument('<id>', 'session id')
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
        const key = { appName: flags.app, userId: flags.user, sessionId };
        const session = await requireSession(service, key);
        const stored = await service.loadView(key);
        // Assembled as the runtime does, orphan calls restored from storage included.
        const view = await new OrphanCallRestorer({ sessionService: service }).assemble({
          key,
          stored,
        });
        const instruction = session.state[INSTRUCTION_STATE_KEY];
        const systemInstruction = typeof instruction === 'string' ? instruction : undefined;
        const tokens =
          estimateRequestOverhead({ systemInstruction }).tokens +
          estimateContentsTokens(view.contents);
        if (flags.json) {
          return writeJson(io, {
            systemInstruction,
            contents: view.contents,
            checkpointSeq: stored.checkpoint?.seq,
            tailEvents: stored.tail.length,
            estimatedTokens: tokens,
            warnings: view.warnings,
          });
        }
        const width = flags.width;
        const covered = stored.checkpoint
          ? `summary of seq ${stored.checkpoint.actions.compaction.startSeq}-${stored.checkpoint.actions.compaction.endSeq} + `
          : '';
        io.stdout(
          `next request for ${sessionId}: ${covered}${stored.tail.length} events as ${view.contents.length} contents, ~${tokens.toLocaleString('en-US')} tokens\n`,
        );
        if (typeof instruction === 'string')
          io.stdout(
            `[system] ${renderContent({ role: 'user', parts: [{ text: instruction }] }, width)}\n`,
          );
        for (const [index, content] of view.contents.entries()) {
          io.stdout(`[${index}] ${content.role}: ${renderContent(content, width)}\n`);
        }
        for (const warning of view.warnings) io.stderr(`warning: ${warning.message}\n`);
      });
    });
}
