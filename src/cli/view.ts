/** `orrery view ID`: exactly what the next model request would hold. */
import type { Command } from 'commander';
import type { Content } from '../events/types.js';
import { describeNextRequest } from '../server/next-request.js';
import { plural } from '../util/plural.js';
import {
  addStoreOptions,
  integerOption,
  nonEmpty,
  type StoreFlags,
  withStore,
  writeJson,
} from './common.js';
import type { CliIo } from './io.js';
import { renderContent } from './render-event.js';
import { explainTrigger, measureNextRequest, systemInstructionOf } from './request-size.js';
import { resolveSessionKey } from './session-lookup.js';
import { requireSession } from './sessions.js';

type ViewFlags = StoreFlags & { json?: boolean; width: number; branch?: string };

export function registerView(program: Command, io: CliIo): void {
  addStoreOptions(
    program
      .command('view')
      .description('print the contents the next model request would hold (summary + tail)')
      .argument('<id>', 'session id', nonEmpty('session id'))
      .option('--json', 'print the provider-ready contents as JSON')
      .option(
        '--branch <branch>',
        "a workflow branch's next-request view (sweep.network); '' for the trunk's, scoped",
      )
      .option(
        '--width <chars>',
        'characters of each content line',
        integerOption('--width', 10),
        160,
      ),
  )
    .addHelpText(
      'after',
      "\nExamples:\n  orrery view 7f3a…\n  orrery view 7f3a… --json | jq '.contents | length'\n  orrery view 7f3a… --branch sweep.network",
    )
    .action(async (sessionId: string, flags: ViewFlags) => {
      await withStore(io, { ...flags, existing: true }, async (service) => {
        const key = await resolveSessionKey(
          service,
          { appName: flags.app, userId: flags.user, sessionId },
          { prefix: true },
        );
        const session = await requireSession(service, key);
        if (flags.branch !== undefined) {
          // The server's rule (GET .../view?branch=), one function for both.
          const described = await describeNextRequest({
            sessionService: service,
            key,
            branch: flags.branch,
            systemInstruction: systemInstructionOf(session.state),
          });
          if (flags.json) return writeJson(io, described);
          return printBranchView(io, { sessionId, described, width: flags.width });
        }
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

/** The human form of a branch's view, as `describeNextRequest` describes it. */
function printBranchView(
  io: CliIo,
  options: { sessionId: string; described: Record<string, unknown>; width: number },
): void {
  const { described, width } = options;
  const contents = described.contents as Content[];
  const tailEvents = described.tailEvents as number;
  const tokens = described.estimatedTokens as number;
  const checkpointSeq = described.checkpointSeq as number | undefined;
  const systemInstruction = described.systemInstruction as string | undefined;
  const branch = described.branch === '' ? 'the trunk' : `branch ${String(described.branch)}`;
  const covered = checkpointSeq === undefined ? '' : `summary (seq ${checkpointSeq}) + `;
  io.stdout(
    `next request for ${options.sessionId} on ${branch}: ${covered}${plural(tailEvents, 'event')} as ${plural(contents.length, 'content')}, ~${tokens.toLocaleString('en-US')} tokens (estimated)\n`,
  );
  if (systemInstruction !== undefined)
    io.stdout(
      `[system] ${renderContent({ role: 'user', parts: [{ text: systemInstruction }] }, width)}\n`,
    );
  for (const [index, content] of contents.entries()) {
    io.stdout(`[${index}] ${content.role}: ${renderContent(content, width)}\n`);
  }
  for (const warning of described.warnings as Array<{ message: string }>)
    io.stderr(`warning: ${warning.message}\n`);
}
