import { describe, expect, it } from 'vitest';
import { maskCredentials } from './mask-credentials.js';

describe('maskCredentials', () => {
  it("masks a URL's password for any scheme, a password holding '@' included", () => {
    expect(maskCredentials('cannot reach http://user:pa55@llm.internal:8080/v1: refused')).toBe(
      'cannot reach http://user:***@llm.internal:8080/v1: refused',
    );
    expect(maskCredentials('postgres://app:p@ss@db:5432/orrery')).toBe(
      'postgres://app:***@db:5432/orrery',
    );
    expect(maskCredentials('redis://:secret@cache:6379 and mongodb+srv://u:x@c.example.net')).toBe(
      'redis://:***@cache:6379 and mongodb+srv://u:***@c.example.net',
    );
  });

  it('masks the user-info password of anything URL-like: malformed schemes, no scheme, a DSN', () => {
    const cases: Array<[string, string]> = [
      ['http//bob:S3cretPw9@127.0.0.1:33063/v1', 'http//bob:***@127.0.0.1:33063/v1'],
      ['http:/bob:S3cretPw9@llm.internal/v1', 'http:/bob:***@llm.internal/v1'],
      ['http:///bob:S3cretPw9@llm.internal/v1', 'http:///bob:***@llm.internal/v1'],
      ['https:\\\\bob:S3cretPw9@llm.internal', 'https:\\\\bob:***@llm.internal'],
      ['see //bob:S3cretPw9@cache:6379', 'see //bob:***@cache:6379'],
      ['dsn bob:S3cretPw9@127.0.0.1:5432/app', 'dsn bob:***@127.0.0.1:5432/app'],
      ['dsn bob:S3cretPw9@db.internal:5432', 'dsn bob:***@db.internal:5432'],
      ['"app:S3cretPw9@[::1]:5432"', '"app:***@[::1]:5432"'],
    ];
    for (const [text, masked] of cases) expect(maskCredentials(text)).toBe(masked);
    // Not credentials: e-mails after a colon, a user without a password.
    for (const kept of [
      'mailto:jane@example.com',
      'at 10:30 jane@example.com',
      'http//bob@127.0.0.1:33063/v1',
    ]) {
      expect(maskCredentials(kept)).toBe(kept);
    }
  });

  it('masks header values, password fields, URL parameters and known key formats', () => {
    expect(maskCredentials('headers {"Authorization":"Bearer abcdefgh12345678"}')).toBe(
      'headers {"Authorization":"Bearer [REDACTED:bearer_token]"}',
    );
    expect(maskCredentials('x-api-key: 0123abcd, api-key=zz9')).toBe(
      'x-api-key: [REDACTED:secret], api-key=[REDACTED:secret]',
    );
    expect(maskCredentials('GET /v1beta/models?key=AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY')).toBe(
      'GET /v1beta/models?key=[REDACTED:api_key]',
    );
    expect(maskCredentials('bad key sk-proj-4f9c2b7d1e8a6f3c5b9d2e7a')).toBe(
      'bad key [REDACTED:api_key]',
    );
  });

  it('leaves what an operator needs: hosts, addresses, users without a password, e-mails', () => {
    for (const kept of [
      'connect ECONNREFUSED 10.0.0.5:5432',
      'postgres://postgres@127.0.0.1:5432/test',
      'http://localhost:11434/v1 answered 404',
      'no account for ann@example.org',
    ]) {
      expect(maskCredentials(kept)).toBe(kept);
    }
  });
});
