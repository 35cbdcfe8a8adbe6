/**
 * `orrery serve`: the agent behind ADK's HTTP API (src/server/). Settings are checked before
 * anything opens (exit 2 naming the flag or variable); SIGTERM or SIGINT shuts down gracefully
 * (runs in flight finish until --shutdown-timeout, then stop; background compactions are
 * waited for; the store is closed) and the process exits 0.
 */
import type { Command } from 'commander';
import pino from 'pino';
import { Runner } from '../runtime/turn/runner.js';
import { createServer } from '../server/create-server.js';
import { findDevUiRoot } from '../server/routes/dev-ui.js';
import {
  DEFAULT_PORT,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  SERVE_ENV,
  type ServeFlags,
} from '../server/serve-config.js';
import { addAgentOptions, agentOptionsOf, resolveAgentSettings } from './agent-runner.js';
import type { CliIo } from './io.js';
import {
  accessDescription,
  addHostOption,
  addLogStoreAndAppOptions,
  asUsageError,
  resolveServerConfig,
  serveUntilInterrupted,
} from './server-command.js';
import { openStore, redact, resolveDb } from './store.js';

type ServeCommandFlags = ServeFlags & { db?: string; app: string; agent?: string; model?: string };

export function registerServe(program: Command, io: CliIo): void {
  const command = addAgentOptions(program.command('serve'))
    .description(
      "serve the agent over HTTP: ADK's API (sessions, /run, /run_sse), orrery's view/events/compact, /metrics, /healthz, /readyz",
    )
    .option(
      '--port <port>',
      `port (env ${SERVE_ENV.port}; default ${DEFAULT_PORT}; 0: a free one)`,
    );
  addHostOption(command)
    .option(
      '--tokens-file <path>',
      `bearer tokens and their users, lines "TOKEN USER[,USER...]" or JSON (env ${SERVE_ENV.tokensFile}; or the tokens themselves in ${SERVE_ENV.tokens})`,
    )
    .option(
      '--max-body-bytes <bytes>',
      `request body limit (env ${SERVE_ENV.maxBodyBytes}; default 1048576)`,
    )
    .option(
      '--shutdown-timeout <ms>',
      `on SIGTERM, how long runs in flight may finish before they are stopped (env ${SERVE_ENV.shutdownTimeoutMs}; default ${DEFAULT_SHUTDOWN_TIMEOUT_MS})`,
    )
    .option(
      '--exclusive',
      `this server is the only process on its SQLite --db: it holds the file's lock and takes leases in process, no lease rows a turn (env ${SERVE_ENV.exclusive}=1)`,
    )
    .option(
      '--dev-ui',
      `serve ADK's web UI at /dev-ui/ (env ${SERVE_ENV.devUi}=1; needs @google/adk-devtools; no tokens)`,
    );
  // `--db` and `--app` as every command has them; no `--user`: each request names its user.
  addLogStoreAndAppOptions(command, {
    description: "app name sessions are scoped by (an --agent module's own when not given)",
    default: 'orrery',
  })
    .addHelpText(
      'after',
      `
Examples:
  ORRERY_MODEL=google:gemini-2.5-flash orrery serve --port 8000
  orrery serve --agent ./agent.ts --db postgres://orrery@db/orrery --host 0.0.0.0 --tokens-file tokens.txt
  orrery serve --dev-ui          then open http://127.0.0.1:8000/dev-ui/
  curl -s localhost:8000/list-apps`,
    )
    .action(async (flags: ServeCommandFlags, invoked: Command) => {
      const config = await resolveServerConfig(io, flags);
      let devUiRoot: string | undefined;
      try {
        devUiRoot = config.devUi ? findDevUiRoot() : undefined;
      } catch (error) {
        throw asUsageError(error);
      }
      // The agent and model settings are checked before the store is opened.
      const settings = await resolveAgentSettings(io, agentOptionsOf(flags, invoked));
      const db = resolveDb({ db: flags.db, io });
      const service = await openStore({
        db,
        appName: settings.appName,
        userId: 'orrery-serve',
        exclusive: config.exclusive,
      });
      try {
        const logger = pino(
          { level: config.logLevel },
          { write: (line: string) => io.stdout(line) },
        );
        const runner = new Runner({
          appName: settings.appName,
          agent: settings.agent,
          sessionService: service,
          compaction: settings.compaction,
          summarizer: settings.summarizer,
          summarizerModel: settings.summarizerModel,
          plugins: settings.plugins,
          ...(settings.sessionLease !== undefined && { sessionLease: settings.sessionLease }),
          logger: logger.child({ component: 'runner' }),
          // A response ends with the agent's last event; the next run on the session waits.
          background: true,
        });
        const server = createServer({
          runner,
          sessionService: service,
          auth: { grants: config.grants },
          logger,
          maxBodyBytes: config.maxBodyBytes,
          devUiRoot,
          inspector: {
            maxConcurrentReplays: config.maxConcurrentReplays,
            maxConcurrentReplaysPerUser: config.maxConcurrentReplaysPerUser,
          },
        });
        const listening = await server
          .listen({ port: config.port, host: config.host })
          .catch((error) => {
            throw asUsageError(error);
          });
        const access = accessDescription(config);
        io.stderr(
          `orrery serve: app '${settings.appName}' (${settings.label}) on ${listening.url}, store ${redact(db)}; ${access}; inspector: ${listening.url}/\n`,
        );
        io.stderr(`orrery serve: ${settings.thresholdLine}\n`);
        if (devUiRoot) io.stderr(`ADK web UI: ${listening.url}/dev-ui/\n`);
        await serveUntilInterrupted({
          io,
          name: 'orrery serve',
          listening,
          shutdownTimeoutMs: config.shutdownTimeoutMs,
          unit: 'run',
        });
      } finally {
        await service.close?.();
      }
    });
}
