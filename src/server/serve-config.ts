/**
 * `orrery serve`'s settings from flags and `ORRERY_SERVE_*` variables (a flag wins), checked
 * before anything starts: a bad one is a `ServeConfigError` naming the flag or variable.
 */
import { DEFAULT_MAX_BODY_BYTES } from './create-server.js';
import { ServeConfigError } from './errors.js';
import {
  DEFAULT_MAX_CONCURRENT_REPLAYS,
  DEFAULT_MAX_CONCURRENT_REPLAYS_PER_USER,
} from './inspector/inspector-deps.js';
import { parseTokens, type TokenGrant } from './tokens.js';

export const SERVE_ENV = {
  port: 'ORRERY_SERVE_PORT',
  host: 'ORRERY_SERVE_HOST',
  tokens: 'ORRERY_SERVE_TOKENS',
  tokensFile: 'ORRERY_SERVE_TOKENS_FILE',
  maxBodyBytes: 'ORRERY_SERVE_MAX_BODY_BYTES',
  shutdownTimeoutMs: 'ORRERY_SERVE_SHUTDOWN_TIMEOUT_MS',
  devUi: 'ORRERY_SERVE_DEV_UI',
  exclusive: 'ORRERY_SERVE_EXCLUSIVE',
  logLevel: 'ORRERY_SERVE_LOG_LEVEL',
  maxReplays: 'ORRERY_SERVE_MAX_REPLAYS',
  maxReplaysPerUser: 'ORRERY_SERVE_MAX_REPLAYS_PER_USER',
} as const;

export const DEFAULT_PORT = 8000;
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export interface ServeFlags {
  port?: string;
  host?: string;
  tokensFile?: string;
  maxBodyBytes?: string;
  shutdownTimeout?: string;
  devUi?: boolean;
  exclusive?: boolean;
  logLevel?: string;
}

export interface ServeConfig {
  port: number;
  host: string;
  /** Empty: no tokens (loopback only, every request allowed). */
  grants: TokenGrant[];
  /** Where the tokens came from (a flag or variable name), for the startup line. */
  tokensSource?: string;
  maxBodyBytes: number;
  shutdownTimeoutMs: number;
  devUi: boolean;
  /**
   * This process is the only one on its SQLite file: the store holds the file's lock and takes
   * leases in process (`SqliteSessionServiceOptions.exclusive`), no lease rows a turn.
   */
  exclusive: boolean;
  logLevel: (typeof LOG_LEVELS)[number];
  /** Inspector replays at once on the server (`ORRERY_SERVE_MAX_REPLAYS`). */
  maxConcurrentReplays: number;
  /** Inspector replays at once for one token (`ORRERY_SERVE_MAX_REPLAYS_PER_USER`). */
  maxConcurrentReplaysPerUser: number;
}

/** The flag's value, else the variable's: with the name to blame when it is bad. */
function pick(
  flag: string | undefined,
  flagName: string,
  env: Record<string, string | undefined>,
  variable: string,
) {
  if (flag !== undefined) return { value: flag, field: flagName };
  const value = env[variable];
  return value === undefined ? undefined : { value, field: variable };
}

function integer(
  setting: { value: string; field: string } | undefined,
  fallback: number,
  minimum: number,
  maximum: number,
): number {
  if (!setting) return fallback;
  const number = Number(setting.value);
  if (
    setting.value.trim() === '' ||
    !Number.isInteger(number) ||
    number < minimum ||
    number > maximum
  ) {
    throw new ServeConfigError({
      field: setting.field,
      message: `expected an integer from ${minimum} to ${maximum}, got ${JSON.stringify(setting.value)}`,
    });
  }
  return number;
}

function boolean(setting: { value: string; field: string } | undefined): boolean {
  if (!setting) return false;
  const value = setting.value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(value)) return false;
  throw new ServeConfigError({
    field: setting.field,
    message: `expected true or false, got ${JSON.stringify(setting.value)}`,
  });
}

export async function resolveServeConfig(options: {
  flags: ServeFlags;
  env: Record<string, string | undefined>;
  readFile: (path: string) => Promise<string>;
}): Promise<ServeConfig> {
  const { flags, env } = options;
  const port = integer(pick(flags.port, '--port', env, SERVE_ENV.port), DEFAULT_PORT, 0, 65_535);
  const hostSetting = pick(flags.host, '--host', env, SERVE_ENV.host);
  const host = hostSetting?.value.trim() ?? DEFAULT_HOST;
  if (host === '')
    throw new ServeConfigError({
      field: hostSetting?.field ?? '--host',
      message: 'is empty: pass an address, e.g. 127.0.0.1',
    });
  const maxBodyBytes = integer(
    pick(flags.maxBodyBytes, '--max-body-bytes', env, SERVE_ENV.maxBodyBytes),
    DEFAULT_MAX_BODY_BYTES,
    1_024,
    1024 * 1024 * 1024,
  );
  const shutdownTimeoutMs = integer(
    pick(flags.shutdownTimeout, '--shutdown-timeout', env, SERVE_ENV.shutdownTimeoutMs),
    DEFAULT_SHUTDOWN_TIMEOUT_MS,
    0,
    3_600_000,
  );
  const devUi = flags.devUi === true || boolean(pick(undefined, '--dev-ui', env, SERVE_ENV.devUi));
  const exclusive =
    flags.exclusive === true || boolean(pick(undefined, '--exclusive', env, SERVE_ENV.exclusive));
  const levelSetting = pick(flags.logLevel, '--log-level', env, SERVE_ENV.logLevel);
  const logLevel = (levelSetting?.value ?? 'info') as ServeConfig['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ServeConfigError({
      field: levelSetting?.field ?? '--log-level',
      message: `expected one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(levelSetting?.value)}`,
    });
  }

  const maxConcurrentReplays = integer(
    pick(undefined, '', env, SERVE_ENV.maxReplays),
    DEFAULT_MAX_CONCURRENT_REPLAYS,
    1,
    64,
  );
  const maxConcurrentReplaysPerUser = integer(
    pick(undefined, '', env, SERVE_ENV.maxReplaysPerUser),
    DEFAULT_MAX_CONCURRENT_REPLAYS_PER_USER,
    1,
    64,
  );

  const { grants, source } = await readGrants(options);
  if (grants.length === 0 && !LOOPBACK.has(host)) {
    throw new ServeConfigError({
      field: hostSetting?.field ?? '--host',
      message: `refusing to listen on ${host} without tokens: anyone who reaches it could read and run every session. Give tokens (--tokens-file or ${SERVE_ENV.tokens}), or listen on 127.0.0.1`,
    });
  }
  if (devUi && grants.length > 0) {
    throw new ServeConfigError({
      field: flags.devUi ? '--dev-ui' : SERVE_ENV.devUi,
      message:
        "ADK's web UI sends no bearer token: serve it without tokens (on 127.0.0.1), for development",
    });
  }
  return {
    port,
    host,
    grants,
    tokensSource: source,
    maxBodyBytes,
    shutdownTimeoutMs,
    devUi,
    exclusive,
    logLevel,
    maxConcurrentReplays,
    maxConcurrentReplaysPerUser,
  };
}

async function readGrants(options: {
  flags: ServeFlags;
  env: Record<string, string | undefined>;
  readFile: (path: string) => Promise<string>;
}): Promise<{ grants: TokenGrant[]; source?: string }> {
  const file = pick(options.flags.tokensFile, '--tokens-file', options.env, SERVE_ENV.tokensFile);
  const inline = options.env[SERVE_ENV.tokens];
  if (file && inline !== undefined) {
    throw new ServeConfigError({
      field: SERVE_ENV.tokens,
      message: `is set as well as ${file.field}: give the tokens one way`,
    });
  }
  let text: string;
  let source: string;
  if (file) {
    source = file.field;
    try {
      text = await options.readFile(file.value);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new ServeConfigError({
        field: file.field,
        message:
          code === 'ENOENT'
            ? `no file at ${file.value}`
            : `cannot read ${file.value} (${code ?? String(error)})`,
        cause: error,
      });
    }
  } else if (inline !== undefined) {
    source = SERVE_ENV.tokens;
    text = inline;
  } else {
    return { grants: [] };
  }
  const grants = parseTokens({ text, source });
  // Tokens asked for but none given would open the server to everyone: refuse.
  if (grants.length === 0) throw new ServeConfigError({ field: source, message: 'holds no token' });
  return { grants, source };
}
