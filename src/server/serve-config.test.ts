import { describe, expect, it } from 'vitest';
import { ServeConfigError } from './errors.js';
import { resolveServeConfig, type ServeFlags } from './serve-config.js';

const token = 't'.repeat(24);

function resolve(
  flags: ServeFlags,
  env: Record<string, string> = {},
  files: Record<string, string> = {},
) {
  return resolveServeConfig({
    flags,
    env,
    readFile: async (path) => {
      const text = files[path];
      if (text === undefined) throw Object.assign(new Error('nope'), { code: 'ENOENT' });
      return text;
    },
  });
}

async function failure(promise: Promise<unknown>): Promise<ServeConfigError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!ServeConfigError.isInstance(error))
    throw new Error(`expected a ServeConfigError, got ${String(error)}`);
  return error;
}

describe('resolveServeConfig', () => {
  it('defaults: 127.0.0.1:8000, no tokens, 1 MiB bodies, 10 s shutdown', async () => {
    expect(await resolve({})).toEqual({
      port: 8000,
      host: '127.0.0.1',
      grants: [],
      tokensSource: undefined,
      maxBodyBytes: 1_048_576,
      shutdownTimeoutMs: 10_000,
      devUi: false,
      exclusive: false,
      logLevel: 'info',
      maxConcurrentReplays: 2,
      maxConcurrentReplaysPerUser: 1,
    });
  });

  it('reads --exclusive or ORRERY_SERVE_EXCLUSIVE; a bad value is named', async () => {
    expect((await resolve({ exclusive: true })).exclusive).toBe(true);
    expect((await resolve({}, { ORRERY_SERVE_EXCLUSIVE: 'on' })).exclusive).toBe(true);
    expect((await resolve({}, { ORRERY_SERVE_EXCLUSIVE: '0' })).exclusive).toBe(false);
    const error = await failure(resolve({}, { ORRERY_SERVE_EXCLUSIVE: 'sometimes' }));
    expect(error.field).toBe('ORRERY_SERVE_EXCLUSIVE');
    expect(error.message).toContain('"sometimes"');
  });

  it('reads the replay bounds from ORRERY_SERVE_MAX_REPLAYS(_PER_USER); a bad one is named', async () => {
    const env = { ORRERY_SERVE_MAX_REPLAYS: '4', ORRERY_SERVE_MAX_REPLAYS_PER_USER: '2' };
    expect(await resolve({}, env)).toMatchObject({
      maxConcurrentReplays: 4,
      maxConcurrentReplaysPerUser: 2,
    });
    const error = await failure(resolve({}, { ORRERY_SERVE_MAX_REPLAYS_PER_USER: '0' }));
    expect(error.field).toBe('ORRERY_SERVE_MAX_REPLAYS_PER_USER');
    expect(error.message).toContain('from 1 to 64');
  });

  it('reads ORRERY_SERVE_* variables; a flag wins over its variable', async () => {
    const env = {
      ORRERY_SERVE_PORT: '9000',
      ORRERY_SERVE_HOST: '0.0.0.0',
      ORRERY_SERVE_TOKENS: `${token} alice,bob`,
      ORRERY_SERVE_MAX_BODY_BYTES: '4096',
      ORRERY_SERVE_SHUTDOWN_TIMEOUT_MS: '2500',
      ORRERY_SERVE_LOG_LEVEL: 'warn',
    };
    expect(await resolve({}, env)).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      grants: [{ token, userIds: ['alice', 'bob'] }],
      tokensSource: 'ORRERY_SERVE_TOKENS',
      maxBodyBytes: 4096,
      shutdownTimeoutMs: 2500,
      logLevel: 'warn',
    });
    expect(await resolve({ port: '7000', shutdownTimeout: '0' }, env)).toMatchObject({
      port: 7000,
      shutdownTimeoutMs: 0,
    });
  });

  it('reads a tokens file named by the flag or ORRERY_SERVE_TOKENS_FILE', async () => {
    const files = { '/etc/orrery/tokens': `# ops\n${token} alice\n` };
    expect(
      (await resolve({ tokensFile: '/etc/orrery/tokens', host: '0.0.0.0' }, {}, files)).grants,
    ).toEqual([{ token, userIds: ['alice'] }]);
    expect(
      (await resolve({}, { ORRERY_SERVE_TOKENS_FILE: '/etc/orrery/tokens' }, files)).tokensSource,
    ).toBe('ORRERY_SERVE_TOKENS_FILE');
  });

  it.each([
    [{ port: '70000' }, {}, '--port', /integer from 0 to 65535, got "70000"/],
    [{}, { ORRERY_SERVE_PORT: 'http' }, 'ORRERY_SERVE_PORT', /got "http"/],
    [{ maxBodyBytes: '10' }, {}, '--max-body-bytes', /from 1024/],
    [{ shutdownTimeout: '-1' }, {}, '--shutdown-timeout', /from 0/],
    [{ logLevel: 'loud' }, {}, '--log-level', /expected one of/],
    [{}, { ORRERY_SERVE_DEV_UI: 'maybe' }, 'ORRERY_SERVE_DEV_UI', /true or false/],
    [{ host: '0.0.0.0' }, {}, '--host', /refusing to listen on 0.0.0.0 without tokens/],
    [{}, { ORRERY_SERVE_HOST: '::' }, 'ORRERY_SERVE_HOST', /without tokens/],
    [{ tokensFile: '/missing' }, {}, '--tokens-file', /no file at \/missing/],
    [{ tokensFile: '/empty' }, {}, '--tokens-file', /holds no token/],
    [{}, { ORRERY_SERVE_TOKENS: '# nothing' }, 'ORRERY_SERVE_TOKENS', /holds no token/],
    [
      { tokensFile: '/empty' },
      { ORRERY_SERVE_TOKENS: `${token} a` },
      'ORRERY_SERVE_TOKENS',
      /give the tokens one way/,
    ],
    [{ devUi: true }, { ORRERY_SERVE_TOKENS: `${token} a` }, '--dev-ui', /sends no bearer token/],
  ] as const)('refuses %j %j naming %s', async (flags, env, field, message) => {
    const error = await failure(resolve(flags, env, { '/empty': '\n# none\n' }));
    expect(error.field).toBe(field);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain(token);
  });
});
