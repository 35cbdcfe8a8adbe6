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
