import { describe, expect, it } from 'vitest';
import { fallbackReason, MAX_FALLBACK_REASON_CHARS } from './fallback-reason.js';

describe('fallbackReason', () => {
  it.each([
    ['Incorrect API key provided: sk-proj-abcdefghijklmnop', 'sk-proj-abcdefghijklmnop'],
    ['GET https://x.googleapis.com/v1?key=AIzaSyA1234567890abcdefghijklmnop', 'AIzaSyA12345'],
    ['header Authorization: Bearer abcdef123456.zzz', 'abcdef123456'],
    ['connect postgres://app:hunter2@db:5432/orrery failed', 'hunter2'],
    ['{"api_key": "s3cr3t-value"}', 's3cr3t-value'],
    ['password=correcthorse', 'correcthorse'],
  ])('masks the credential in %j', (text, secret) => {
    const reason = fallbackReason(new Error(text));
    expect(reason).not.toContain(secret);
    expect(reason.length).toBeGreaterThan(0);
  });

  it('keeps an ordinary error message as it is', () => {
    const text = "Summarizer 'x' failed (reason=timeout): no answer within 120000 ms";
    expect(fallbackReason(new Error(text))).toBe(text);
    expect(fallbackReason('plain')).toBe('plain');
  });

  it('bounds the reason', () => {
    const reason = fallbackReason(new Error('x'.repeat(5000)));
    expect(reason).toHaveLength(MAX_FALLBACK_REASON_CHARS + 1);
  });
});
