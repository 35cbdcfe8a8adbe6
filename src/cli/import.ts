/** `orrery import FILE`: a transcript becomes a session (one per run of a multi-run file). */
import type { Command } from 'commander';
import { getFunctionCalls } from '../events/event-helpers.js';
import { importTranscripts, parseImportFormat } from '../importers/import-transcript.js';
import type { ImportResult } from '../importers/types.js';
import { SessionStoreError } from '../sessions/errors.js';
import {
  addStoreOptions,
  integerOption,
  readTranscriptFile,
  requireEvents,
  type StoreFlags,
  withStore,
  writeJson,
} from './common.js';
import { appendImported, importedState, summarizeRepairs } from './import-session.js';
import type { CliIo } from './io.js';

interface ImportFlags extends StoreFlags {
  format: string;
  session?: string;
  run?: number;
  agent?: string;
  json?: boolean;
  verbose?: boolean;
}

export function registerImport(program: Command, io: CliIo): void {
  addStoreOptions(
    program
      .command('import')
      .description(
        'import a transcript (ADK session, OpenAI chat, Claude Code, SWE-agent, AI SDK) as a new session',
      )
      .argument('<file>', 'transcript file')
      .option(
        '--format <format>',
        'auto | adk | openai-chat | claude-code | swe-agent | ai-sdk',
        'auto',
      )
      .option('--session <id>', 'session id (default: a new UUID; multi-run files add -run-N)')
      .option(
        '--run <n>',
        'multi-run files (tau-bench): import only run N (0-based)',
        integerOption('--run'),
      )
      .option('--agent <name>', 'author of the model events', 'agent')
      .option('--verbose', 'list every repair, not only the counts')
      .option('--json', 'print the result as JSON'),
  )
    .addHelpText(
      'after',
      `
Examples:
  orrery import ~/.claude/projects/my-app/2f1c.jsonl
  orrery import run.traj --session swe-1
  orrery import gpt-4o-airline.json --run 3 --db ./airline.db

The system prompt is kept in the session state ('orrery:instruction'), not as an event.
Calls without ids get ids, reused ids are renamed and results pair by position: every repair is
reported, nothing is dropped.`,
    )
    .action(async (file: string, flags: ImportFlags) => {
      const format = parseImportFormat(flags.format);
      const { text, fileName } = await readTranscriptFile(file);
      const results = importTranscripts({
        text,
        fileName,
        format,
        run: flags.run,
        agentName: flags.agent,
      });
      requireEvents(results, fileName);
      const base = flags.session ?? crypto.randomUUID();
      const ids = results.map((result) =>
        results.length > 1 ? `${base}-run-${result.meta.run ?? 0}` : base,
      );
      await withStore(io, flags, async (service) => {
        const key = { appName: flags.app, userId: flags.user };
        // Every session id is checked free before the first write.
        for (const sessionId of ids) {
          if (await service.getSession({ ...key, sessionId })) {
            throw new SessionStoreError({
              message: `session '${sessionId}' already exists`,
              sessionId,
            });
          }
        }
        const summaries = [];
        const created: string[] = [];
        try {
          for (const [index, result] of results.entries()) {
            const sessionId = ids[index] as string;
            await service.createSession({ ...key, sessionId, state: importedState(result, file) });
            created.push(sessionId);
            await appendImported({ service, key: { ...key, sessionId }, result });
            summaries.push(describe(result, sessionId));
          }
        } catch (error) {
          // All or nothing: a half-imported session would pass for the whole transcript.
          for (const sessionId of created) {
            await service.deleteSession({ ...key, sessionId }).catch(() => undefined);
          }
          throw error;
        }
        if (flags.json) {
          writeJson(io, summaries.length === 1 ? summaries[0] : summaries);
          return;
        }
        for (const [index, summary] of summaries.entries()) {
          io.stdout(
            `Imported ${fileName}${summary.run === undefined ? '' : ` run ${summary.run}`} (${summary.format}) as session ${summary.sessionId}: ${summary.events} events, ${summary.modelCalls} model calls, ${summary.invocations} invocations\n`,
          );
          const result = results[index] as ImportResult;
          io.stdout(`  repairs: ${summarizeRepairs(result.repairs)}\n`);
          if (flags.verbose) {
            for (const repair of result.repairs) {
              io.stdout(`    ${repair.location ? `${repair.location}: ` : ''}${repair.message}\n`);
            }
          }
        }
      });
    });
}

function describe(result: ImportResult, sessionId: string) {
  return {
    sessionId,
    format: result.meta.format,
    run: result.meta.run,
    events: result.events.length,
    modelCalls: result.events.filter((event) => event.content?.role === 'model').length,
    toolCalls: result.events.reduce((total, event) => total + getFunctionCalls(event).length, 0),
    invocations: new Set(result.events.map((event) => event.invocationId)).size,
    repairs: result.repairs,
  };
}
