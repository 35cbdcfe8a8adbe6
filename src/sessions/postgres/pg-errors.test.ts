import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, InvalidEventError } from '../../events/errors.js';
import { SessionNotFoundError, SessionStoreError } from '../errors.js';
import {
  isConnectionError,
  isRetryableError,
  passwordsOf,
  redactConnectionString,
  toStoreError,
} from './pg-errors.js';
import { PostgresSessionService } from './postgres-session-service.js';

function driverError(message: string, code?: string): Error {
  return Object.assign(new Error(message), code === undefined ? {} : { code });
}

const key = { appName: 'app', userId: 'alice', sessionId: 's1' };

describe('PostgreSQL error mapping', () => {
  it.each([
    ['socket reset', driverError('read ECONNRESET', 'ECONNRESET')],
    ['refused', driverError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['broken pipe', driverError('write EPIPE', 'EPIPE')],
    ['timed out', driverError('connect ETIMEDOUT', 'ETIMEDOUT')],
    ['connection dropped', driverError('Connection terminated unexpectedly')],
    ['pool connect timeout', driverError('timeout exceeded when trying to connect')],
    ['SQLSTATE class 08', driverError('connection failure', '08006')],
    ['admin shutdown', driverError('terminating connection due to administrator command', '57P01')],
    ['crash shutdown', driverError('crash shutdown', '57P02')],
    ['cannot connect now', driverError('the database system is starting up', '57P03')],
    ['too many connections', driverError('sorry, too many clients already', '53300')],
    ['serialization failure', driverError('could not serialize access', '40001')],
  ])('%s is a retryable SessionStoreError naming operation and session', (_name, error) => {
    const mapped = toStoreError({ error, operation: 'appendEvent', key });
    expect(SessionStoreError.isInstance(mapped)).toBe(true);
    expect(mapped).toMatchObject({ retryable: true, sessionId: 's1', cause: error });
    expect((mapped as Error).message).toBe(
      `PostgreSQL appendEvent failed in session 's1' (app 'app', user 'alice'): ${error.message} (retryable)`,
    );
  });

  it.each([
    ['unique violation', driverError('duplicate key value', '23505')],
    ['invalid json', driverError('invalid input syntax for type json', '22P02')],
    ['syntax error', driverError('syntax error at or near', '42601')],
    ['missing table', driverError('relation does not exist', '42P01')],
    ['a plain bug', new TypeError('cannot read properties of undefined')],
  ])('%s is not retryable', (_name, error) => {
    const mapped = toStoreError({ error, operation: 'loadView', key });
    expect(mapped).toMatchObject({ retryable: false, sessionId: 's1' });
    expect(isConnectionError(error)).toBe(false);
  });

  it('passes orrery errors and aborts through, and maps a NUL in jsonb to InvalidEventError', () => {
    const notFound = new SessionNotFoundError(key);
    expect(toStoreError({ error: notFound, operation: 'loadView', key })).toBe(notFound);
    const abort = new DOMException('aborted', 'AbortError');
    expect(toStoreError({ error: abort, operation: 'loadView', key })).toBe(abort);
    const nul = toStoreError({
      error: driverError('unsupported Unicode escape sequence', '22P05'),
      operation: 'appendEvent',
      key,
    });
    expect(InvalidEventError.isInstance(nul)).toBe(true);
    expect(isRetryableError(new SessionStoreError({ message: 'x', retryable: true }))).toBe(true);
  });

  it('names app and user for operations without a session', () => {
    const mapped = toStoreError({
      error: driverError('read ECONNRESET', 'ECONNRESET'),
      operation: 'listSessions',
      key: { appName: 'app', userId: 'alice', sessionId: '' },
    }) as SessionStoreError;
    expect(mapped.message).toBe(
      "PostgreSQL listSessions failed for app 'app', user 'alice': read ECONNRESET (retryable)",
    );
    expect(mapped.sessionId).toBe(undefined);
  });

  it('never puts a password in a message', () => {
    const url = 'postgres://app:p%40ss-w0rd@db.internal:5432/orrery?sslmode=require';
    const secrets = passwordsOf(url);
    expect(secrets).toEqual(['p%40ss-w0rd', 'p@ss-w0rd']);
    const mapped = toStoreError({
      error: driverError(`could not connect to ${url} as app with p@ss-w0rd`, 'ECONNREFUSED'),
      operation: 'loadView',
      key,
      secrets,
    }) as Error;
    expect(mapped.message).not.toContain('w0rd');
    expect(mapped.message).toContain('postgres://app:***@db.internal:5432/orrery');
    expect(
      redactConnectionString('postgresql://u:a@b@h/db and postgres://h/db?password=x&a=1'),
    ).toBe('postgresql://u:***@h/db and postgres://h/db?password=***&a=1');
  });

  it('rejects a negative or non-finite timeout option, naming it', () => {
    for (const [argument, value] of [
      ['queryTimeoutMs', -1],
      ['connectionTimeoutMs', Number.NaN],
    ] as const) {
      const error = (() => {
        try {
          new PostgresSessionService({ [argument]: value });
        } catch (caught) {
          return caught;
        }
      })();
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect((error as InvalidArgumentError).argument).toBe(argument);
    }
  });
});
