import { describe, expect, it } from 'vitest';
import { redactJson } from './redact-json.js';

describe('redactJson', () => {
  it('keeps keys, replaces values under secret keys whole and scans the other strings', () => {
    const input = {
      'owner@example.com': ['x', { who: 'owner@example.com', n: 3, ok: true, none: null }],
      DB_PASSWORD: 'hunter2',
      apiKey: 'k-1',
      'x-api-key': 'k-2',
      client_secret: 42,
      idToken: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlMTIz',
      password: '',
      credentials: { username: 'bob', password: 'pw' },
      tokenCount: 12,
    };
    const before = structuredClone(input);
    expect(redactJson(input)).toEqual({
      'owner@example.com': ['x', { who: '[REDACTED:email]', n: 3, ok: true, none: null }],
      DB_PASSWORD: '[REDACTED:secret]',
      apiKey: '[REDACTED:secret]',
      'x-api-key': '[REDACTED:secret]',
      client_secret: '[REDACTED:secret]',
      idToken: '[REDACTED:jwt]',
      password: '',
      credentials: { username: 'bob', password: '[REDACTED:secret]' },
      tokenCount: 12,
    });
    expect(input).toEqual(before);
  });

  it('redacts card numbers stored as numbers and numbers under phone keys only', () => {
    expect(
      redactJson({
        pan: 4111111111111111,
        order: 4111111111111112,
        createdAt: 1700000000123,
        phone: 4155550132,
        fax: '+1 415 555 0199',
        size: 4155550132,
        amount: 12.5,
      }),
    ).toEqual({
      pan: '[REDACTED:card]',
      order: 4111111111111112,
      createdAt: 1700000000123,
      phone: '[REDACTED:phone]',
      fax: '[REDACTED:phone]',
      size: 4155550132,
      amount: 12.5,
    });
  });

  it('redacts a password under a non-secret key: short names and a field named as a secret', () => {
    const input = {
      pw: 'S3cretPw9',
      pass: 'S3cretPw9',
      dbPwd: 'S3cretPw9',
      env: [
        { name: 'DB_PASSWORD', value: 'S3cretPw9' },
        { name: 'DB_HOST', value: 'db.internal' },
      ],
      form: { id: 'password', type: 'password', value: 'S3cretPw9' },
      parameter: { Name: '/prod/db/password', Value: 'S3cretPw9', Version: 3 },
      // Not secrets: a key that merely ends in `pass`, a field named after something else.
      bypass: 'cache',
      field: { name: 'username', value: 'bob' },
    };
    expect(redactJson(input)).toEqual({
      pw: '[REDACTED:secret]',
      pass: '[REDACTED:secret]',
      dbPwd: '[REDACTED:secret]',
      env: [
        { name: 'DB_PASSWORD', value: '[REDACTED:secret]' },
        { name: 'DB_HOST', value: 'db.internal' },
      ],
      form: { id: 'password', type: 'password', value: '[REDACTED:secret]' },
      parameter: { Name: '/prod/db/password', Value: '[REDACTED:secret]', Version: 3 },
      bypass: 'cache',
      field: { name: 'username', value: 'bob' },
    });
  });

  it('redacts internationalized and obfuscated e-mail addresses', () => {
    expect(
      redactJson({
        idn: 'write to josé@exämple.de today',
        punycode: 'user@xn--mnchen-3ya.de',
        obfuscated: 'jane (at) example (dot) com',
        brackets: 'JANE [AT] example [dot] co [dot] uk!',
        kept: 'meet (at) noon, look at example dot com',
      }),
    ).toEqual({
      idn: 'write to [REDACTED:email] today',
      punycode: '[REDACTED:email]',
      obfuscated: '[REDACTED:email]',
      brackets: '[REDACTED:email]!',
      kept: 'meet (at) noon, look at example dot com',
    });
  });
});
