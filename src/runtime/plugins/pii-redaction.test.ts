import { describe, expect, it } from 'vitest';
import { PiiRedactionPlugin, passesLuhn, redactText, redactValue } from './pii-redaction.js';

const plugin = new PiiRedactionPlugin();
const redact = (text: string) => redactText(text, plugin.patterns);

describe('PiiRedactionPlugin', () => {
  it('redacts emails, keys and bearer tokens', () => {
    expect(redact('mail jane.doe+ops@example.co.uk now')).toBe('mail [REDACTED:email] now');
    expect(redact('key sk-proj-abcdefghijklmnopqrstuv123')).toBe('key [REDACTED:api_key]');
    expect(redact(`google AIza${'B'.repeat(35)}`)).toBe('google [REDACTED:api_key]');
    expect(redact(`gh ghp_${'a1'.repeat(18)}`)).toBe('gh [REDACTED:api_key]');
    expect(redact('slack xoxb-1234567890-abcdefghij')).toBe('slack [REDACTED:api_key]');
    expect(redact('Authorization: Bearer eyJhbGciOi.J9payload.sig')).toBe(
      'Authorization: Bearer [REDACTED:bearer_token]',
    );
  });

  it('redacts card numbers only when the Luhn check passes', () => {
    expect(passesLuhn('4111111111111111')).toBe(true);
    expect(passesLuhn('4111111111111112')).toBe(false);
    expect(redact('card 4111 1111 1111 1111 ok')).toBe('card [REDACTED:card] ok');
    expect(redact('order 4111111111111112 ok')).toBe('order 4111111111111112 ok');
  });

  it('redacts phone numbers but not dates, IPs, versions or bare ids', () => {
    expect(redact('call +1 (415) 555-0132 today')).toBe('call [REDACTED:phone] today');
    expect(redact('call 415-555-0132')).toBe('call [REDACTED:phone]');
    for (const kept of [
      'at 2024-01-15 10:30:00',
      'host 192.168.100.200',
      'version 10.2.3',
      'timestamp 1700000000123',
      'uuid 550e8400-e29b-41d4-a716-446655440000',
    ]) {
      expect(redact(kept)).toBe(kept);
    }
  });

  it('walks nested results, keeps keys and takes extra patterns', () => {
    const custom = new PiiRedactionPlugin({ patterns: [/EMP-\d{6}/] });
    const result = redactValue(
      { 'owner@example.com': ['x', { who: 'owner@example.com', id: 'EMP-123456', n: 3 }] },
      custom.patterns,
    );
    expect(result).toEqual({
      'owner@example.com': ['x', { who: '[REDACTED:email]', id: '[REDACTED:custom]', n: 3 }],
    });
  });
});
