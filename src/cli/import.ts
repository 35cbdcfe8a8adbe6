/** `orrery import FILE`: a transcript becomes a session (one per run of a multi-run file). */
import type { Command } from 'commander';
import { InvalidArgumentError } from '../events/errors.js';
import { ImportError } from '../importers/errors.js';
import { importTranscriptFile } from '../importers/import-file.js';
import { parseImportFormat } from '../importers/import-transcript.js';
import { requireEvents } from '../importers/require-events.js';
import type { StreamedImport } from '../importers/streamed-import.js';
import { IMPORT_FORMATS, type ImportFormat } from '../importers/types.js';
import { SessionStoreError } from '../sessions/errors.js';
import type { SessionService } from '../sessions/session-service.js';
import { assertValidSessionKey } from '../sessions/store-helpers.js';
import {
  addStoreOptions,
  checkTranscriptFile,
  integerOption,
  type StoreFlags,
  withStore,
  writeJson,
} from './common.js';
import { CliUsageError } from './errors.js';
import { storeStreamed, summarizeRepairs } from './import-session.js';
import { abortOnInterrupt } from './interrupt.js';
import type { CliIo } from './io.js';
import { resolveDb } from './store.js';

interface ImportFlags extends StoreFlags {
  format: ImportFormat | 'auto';
  session?: string;
  run?: number;
  agent?: string;
  json?: boolean;
  verbose?: boolean;
  maxRecordMb?: number;
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
        `${['auto', ...IMPORT_FORMATS].join(' | ')}`,
        formatOption,
        'auto' as ImportFormat | 'auto',
      )
      .option('--session <id>', 'session id (default: a new UUID; multi-run files add -run-N)')
      .option(
        '--run <n>',
        'multi-run files (tau-bench): import only run N (0-based)',
        integerOption('--run'),
      )
      .option('--agent <name>', 'author of the model events', 'agent')
      .option(
        '--max-record-mb <n>',
        'largest record (a JSONL line, an array element) read, in MiB (default 64)',
        integerOption('--max-record-mb', 1),
      )
      .option('--verbose', 'list every repair, and print progress to stderr')
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
reported, nothing is dropped. A session is stored whole or not at all: a failure, Ctrl-C or
SIGTERM part-way leaves nothing (exit 1); a multi-run file stores a session per run, and when a
run fails the runs stored before it are deleted. JSONL files and top-level JSON arrays of
messages or runs are read one record at a time (twice: checked, then stored; each run of a
multi-run file reads back its own bytes), so memory follows the largest record, not the file; a
record over 64 MiB (--max-record-mb) is refused naming its line.`,
    )
    .action(async (file: string, flags: ImportFlags) => {
      // Every flag is checked before the file is read or the store opened.
      checkImportFlags(flags);
      resolveDb({ db: flags.db, io });
      const format = flags.format;
      const fileName = await checkTranscriptFile(file);
      // From the first read on: a signal stops the reading too, and nothing is stored.
      const interrupt = abortOnInterrupt(
        io,
        (signal) =>
          `${signal} received: the import of ${fileName} was stopped and rolled back; no session of it was stored`,
      );
      try {
        // The first pass: every record checked, meta, repairs and counts learned, nothing held.
        const results = await importTranscriptFile({
          path: file,
          fileName,
          format,
          run: flags.run,
          agentName: flags.agent,
          maxRecordBytes:
            flags.maxRecordMb === undefined ? undefined : flags.maxRecordMb * 1024 * 1024,
          signal: interrupt.signal,
        });
        requireEvents(results, fileName);
        const base = flags.session ?? crypto.randomUUID();
        const ids = results.map((result) =>
          results.length > 1 ? `${base}-run-${result.meta.run ?? 0}` : base,
        );
        const summaries = await withStore(io, flags, (service) =>
          storeAll({ service, flags, io, file, fileName, results, ids, signal: interrupt.signal }),
        );
        printSummaries({ io, flags, fileName, results, summaries });
      } finally {
        interrupt.dispose();
      }
    });
}

/** `--format`: an unknown one is a usage error (exit 2), named. */
function formatOption(value: string): ImportFormat | 'auto' {
  try {
    return parseImportFormat(value);
  } catch (error) {
    if (!ImportError.isInstance(error)) throw error;
    throw new CliUsageError({ field: '--format', message: `--format: ${error.message}` });
  }
}

/** Flag values the store or the importer would otherwise refuse later, or misread. */
function checkImportFlags(flags: ImportFlags): void {
  if (flags.agent !== undefined && flags.agent.trim() === '') {
    throw new CliUsageError({
      field: '--agent',
      message: `--agent must name the agent (the author of the model events), got ${JSON.stringify(flags.agent)}`,
    });
  }
  const flagOf = { appName: '--app', userId: '--user', sessionId: '--session' } as const;
  try {
    // A generated id is valid: a stand-in takes its place.
    assertValidSessionKey({
      appName: flags.app,
      userId: flags.user,
      sessionId: flags.session ?? '-',
    });
  } catch (error) {
    if (!InvalidArgumentError.isInstance(error)) throw error;
    const field = flagOf[error.argument as keyof typeof flagOf] ?? error.argument;
    // The store's words without its argument name: the flag replaces it.
    const detail = error.message.slice(error.argument.length + 2);
    throw new CliUsageError({ field, message: `${field} ${detail}` });
  }
}

async function storeAll(options: {
  service: SessionService;
  flags: ImportFlags;
  io: CliIo;
  file: string;
  fileName: string;
  results: StreamedImport[];
  ids: string[];
  signal: AbortSignal;
}) {
  const { service, flags, results, ids, signal } = options;
  const key = { appName: flags.app, userId: flags.user };
  // Every session id is checked free before the first write.
  for (const sessionId of ids) {
    if (await service.getSession({ ...key, sessionId, signal })) {
      throw new SessionStoreError({ message: `session '${sessionId}' already exists`, sessionId });
    }
  }
  const progress = progressReporter(options.io, flags.verbose === true);
  const summaries = [];
  const stored: string[] = [];
  try {
    for (const [index, result] of results.entries()) {
      const sessionId = ids[index] as string;
      const label =
        result.meta.run === undefined
          ? options.fileName
          : `${options.fileName} run ${result.meta.run}`;
      await storeStreamed({
        service,
        key: { ...key, sessionId },
        imported: result,
        file: options.file,
        signal,
        onProgress: (written, total) => progress(label, written, total),
      });
      stored.push(sessionId);
      summaries.push(describe(result, sessionId));
    }
  } catch (error) {
    // All or nothing across runs too: the runs stored before the failure are removed (each run
    // is its own importSession, read back from its own bytes: docs/architecture.md#edge).
    for (const sessionId of stored) {
      await service.deleteSession({ ...key, sessionId }).catch(() => undefined);
    }
    throw error;
  } finally {
    progress.done();
  }
  return summaries;
}

/**
 * Progress on stderr: redrawn in place on a terminal, one line per step with `--verbose`
 * (so a log or a test can follow a long import), nothing otherwise.
 */
function progressReporter(io: CliIo, verbose: boolean) {
  let drawn = false;
  const report = (label: string, written: number, total: number) => {
    const line = `importing ${label}: ${written}/${total} events`;
    if (io.stderrIsTty) {
      io.stderr(`\r\x1b[2K${line}`);
      drawn = true;
    } else if (verbose) {
      io.stderr(`${line}\n`);
    }
  };
  return Object.assign(report, {
    done: () => {
      if (drawn) io.stderr('\r\x1b[2K');
    },
  });
}

function printSummaries(options: {
  io: CliIo;
  flags: ImportFlags;
  fileName: string;
  results: StreamedImport[];
  summaries: ReturnType<typeof describe>[];
}): void {
  const { io, flags, fileName, results, summaries } = options;
  if (flags.json) {
    writeJson(io, summaries.length === 1 ? summaries[0] : summaries);
    return;
  }
  for (const [index, summary] of summaries.entries()) {
    io.stdout(
      `Imported ${fileName}${summary.run === undefined ? '' : ` run ${summary.run}`} (${summary.format}) as session ${summary.sessionId}: ${summary.events} events, ${summary.modelCalls} model calls, ${summary.invocations} invocations\n`,
    );
    const result = results[index] as StreamedImport;
    io.stdout(`  repairs: ${summarizeRepairs(result.repairs)}\n`);
    if (flags.verbose) {
      for (const repair of result.repairs) {
        io.stdout(`    ${repair.location ? `${repair.location}: ` : ''}${repair.message}\n`);
      }
    }
  }
}

function describe(result: StreamedImport, sessionId: string) {
  return {
    sessionId,
    format: result.meta.format,
    run: result.meta.run,
    events: result.stats.events,
    modelCalls: result.stats.modelCalls,
    toolCalls: result.stats.toolCalls,
    invocations: result.stats.invocations,
    repairs: result.repairs,
  };
}
