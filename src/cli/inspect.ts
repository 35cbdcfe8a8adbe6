/**
 * `orrery inspect`: the session inspector on the local store, no agent needed. It serves the
 * same server as `orrery serve` (the page at `/`, its API, the token rules) over the store
 * opened read-only, with a placeholder agent that never runs (a run is refused before it
 * starts: the store takes no write). Prints the URL and nothing else; SIGINT or SIGTERM stops it.
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import pino from 'pino';
import type { Model } from '../models/types.js';
import { LlmAgent } from '../runtime/agents/llm-agent.js';
import { Runner } from '../runtime/turn/runner.js';
import { createServer } from '../server/create-server.js';
import { resolveServeConfig } from '../server/serve-config.js';
import { CliUsageError } from './errors.js';
import type { CliIo } from './io.js';
import { readOnlyStore } from './read-only-store.js';
import { asUsageError, untilInterrupted } from './server-command.js';
import { isPostgresUrl, openStore, redact, resolveDb } from './store.js';

/** Beside `orrery serve`'s 8000 (and the replicas' 8001, 8002 of the README), so all can run. */
export const DEFAULT_INSPECT_PORT = 8010;
/** How long open streams and requests get to finish on SIGINT or SIGTERM. */
const SHUTDOWN_TIMEOUT_MS = 5_000;

interface InspectFlags {
  db?: string;
  pgUrl?: string;
  port?: string;
  host?: string;
  tokensFile?: string;
  app: string;
}

/** The agent of a server that only inspects: its model refuses every call. */
function placeholderAgent(): LlmAgent {
  const model: Model = {
    modelId: 'orrery-inspect:none',
    generate: () =>
      Promise.reject(new Error('orrery inspect serves no agent: use orrery serve to run one')),
  };
  return new LlmAgent({ name: 'inspector', model });
}

/** `--db`, or `--pg-url` (a PostgreSQL URL), not both; else `ORRERY_DB` or the default. */
function storeOf(flags: InspectFlags, io: CliIo): string {
  if (flags.pgUrl === undefined) return resolveDb({ db: flags.db, io });
  if (flags.db !== undefined) {
    throw new CliUsageError({ field: '--pg-url', message: 'give --db or --pg-url, not both' });
  }
  if (!isPostgresUrl(flags.pgUrl)) {
    throw new CliUsageError({
      field: '--pg-url',
      message: `expected a postgres:// or postgresql:// URL, got ${JSON.stringify(redact(flags.pgUrl))}`,
    });
  }
  return flags.pgUrl;
}

export function registerInspect(program: Command, io: CliIo): void {
  program
    .command('inspect')
    .description(
      'open the session inspector on the local store: sessions, timelines, compactions, replay',
    )
    .option('--db <path-or-url>', 'SQLite file or postgres:// URL (env ORRERY_DB)')
    .option('--pg-url <url>', 'a PostgreSQL store (instead of --db)')
    .option('--port <port>', `port (default ${DEFAULT_INSPECT_PORT}; 0: a free one)`)
    .option('--host <address>', 'address to listen on (default 127.0.0.1; another needs tokens)')
    .option(
      '--tokens-file <path>',
      'bearer tokens and their users, as for orrery serve (or ORRERY_SERVE_TOKENS)',
    )
    .option('--app <name>', 'the app listed when the store cannot list every app', 'orrery')
    .addHelpText(
      'after',
      `
Examples:
  orrery inspect                     then open the URL it prints
  orrery inspect --db ./replays.db --port 0
  orrery inspect --pg-url postgres://orrery@db/orrery --host 0.0.0.0 --tokens-file tokens.txt

Read-only: runs, compactions and deletes are refused. Replays in the page store nothing.`,
    )
    .action(async (flags: InspectFlags) => {
      const config = await resolveServeConfig({
        flags: {
          port: flags.port ?? String(DEFAULT_INSPECT_PORT),
          host: flags.host,
          tokensFile: flags.tokensFile,
          logLevel: 'warn',
        },
        env: io.env,
        readFile: (path) => readFile(path, 'utf8'),
      }).catch((error) => {
        throw asUsageError(error);
      });
      const db = storeOf(flags, io);
      const stored = await openStore({
        db,
        appName: flags.app,
        userId: 'orrery-inspect',
        mustExist: true,
      });
      const service = readOnlyStore(stored);
      try {
        const logger = pino({ level: 'warn' }, { write: (line: string) => io.stderr(line) });
        const runner = new Runner({
          appName: flags.app,
          agent: placeholderAgent(),
          sessionService: service,
          compaction: null,
          logger: false,
        });
        const server = createServer({
          runner,
          sessionService: service,
          auth: { grants: config.grants },
          logger,
          inspector: {
            readOnlyReason:
              'orrery inspect only reads the store: no agent runs here (orrery serve --agent MODULE serves one with a chat box)',
            maxConcurrentReplays: config.maxConcurrentReplays,
            maxConcurrentReplaysPerUser: config.maxConcurrentReplaysPerUser,
          },
        });
        const listening = await server
          .listen({ port: config.port, host: config.host })
          .catch((error) => {
            throw asUsageError(error);
          });
        io.stdout(`orrery inspector: ${listening.url}/\n`);
        await untilInterrupted(io);
        await listening.shutdown({ timeoutMs: SHUTDOWN_TIMEOUT_MS });
      } finally {
        await service.close?.();
      }
    });
}
