/**
 * What `orrery serve`, `orrery gateway` and `orrery inspect` share, in a module of its own so
 * that `inspect` and `gateway` do not load `serve`'s agent and model modules.
 */
import { readFile } from 'node:fs/promises';
import { type Command, Option } from 'commander';
import { ServeConfigError } from '../server/errors.js';
import type { ListeningServer } from '../server/listen.js';
import {
  DEFAULT_HOST,
  resolveServeConfig,
  SERVE_ENV,
  type ServeConfig,
  type ServeFlags,
} from '../server/serve-config.js';
import { nonEmpty } from './common.js';
import { CliUsageError } from './errors.js';
import type { CliIo, InterruptSignal } from './io.js';

/** A server setting error is a usage error (exit 2) that names the flag or variable. */
export function asUsageError(error: unknown): unknown {
  if (!ServeConfigError.isInstance(error)) return error;
  return new CliUsageError({ field: error.field, message: error.message, cause: error });
}

/** The first SIGTERM or SIGINT; a second one kills as usual. */
export function untilInterrupted(io: CliIo): Promise<InterruptSignal> {
  return new Promise((resolve) => {
    const unsubscribe = io.onInterrupt?.((signal) => {
      unsubscribe?.();
      resolve(signal);
    });
  });
}

/** The server settings from flags and `io.env` (token files read from disk); a bad one is a usage error. */
export function resolveServerConfig(io: CliIo, flags: ServeFlags): Promise<ServeConfig> {
  return resolveServeConfig({
    flags,
    env: io.env,
    readFile: (path) => readFile(path, 'utf8'),
  }).catch((error) => {
    throw asUsageError(error);
  });
}

/** The startup line's part on access: the tokens' count and source, or that there are none. */
export function accessDescription(config: ServeConfig): string {
  return config.grants.length > 0
    ? `${config.grants.length} token(s) from ${config.tokensSource}`
    : 'no tokens: every request is allowed, so it listens on loopback only';
}

/** `--host`, as `serve` and `gateway` take it. */
export function addHostOption(command: Command): Command {
  return command.option(
    '--host <address>',
    `address to listen on (env ${SERVE_ENV.host}; default ${DEFAULT_HOST}; another needs tokens)`,
  );
}

/** `--log-level`, `--db` and `--app` (with its description and default), as `serve` and `gateway` take them. */
export function addLogStoreAndAppOptions(
  command: Command,
  app: { description: string; default: string },
): Command {
  return command
    .option(
      '--log-level <level>',
      `fatal, error, warn, info, debug, trace or silent (env ${SERVE_ENV.logLevel}; default info)`,
    )
    .addOption(
      new Option('--db <path-or-url>', 'SQLite file, or a postgres:// URL (env ORRERY_DB)').default(
        undefined,
        './.orrery/orrery.db',
      ),
    )
    .option('--app <name>', app.description, nonEmpty('--app'), app.default);
}

/**
 * Until the first SIGTERM or SIGINT, then a graceful shutdown: what is in flight (`unit`: runs or
 * requests) finishes until `shutdownTimeoutMs`; both steps are said on stderr.
 */
export async function serveUntilInterrupted(options: {
  io: CliIo;
  /** The stderr lines' prefix, e.g. `orrery serve`. */
  name: string;
  listening: ListeningServer;
  shutdownTimeoutMs: number;
  unit: 'run' | 'request';
}): Promise<void> {
  const { io, name, unit, shutdownTimeoutMs } = options;
  const signal = await untilInterrupted(io);
  io.stderr(`${name}: ${signal}: finishing ${unit}s in flight (up to ${shutdownTimeoutMs} ms)\n`);
  const report = await options.listening.shutdown({ timeoutMs: shutdownTimeoutMs });
  io.stderr(
    `${name}: stopped (${report.finished} ${unit}(s) finished, ${report.aborted} stopped at the deadline)\n`,
  );
}
