import { describe, expect, it } from 'vitest';
import { redactJson, redactText } from './redact-json.js';
import { negativeSamples, positiveSamples } from './test-helpers/redaction-corpus.js';

function redact(input: string | Record<string, unknown>): string {
  return typeof input === 'string' ? redactText(input) : JSON.stringify(redactJson(input));
}

function original(input: string | Record<string, unknown>): string {
  return typeof input === 'string' ? input : JSON.stringify(input);
}

describe('redaction corpus', () => {
  it('takes out every secret of the positives and changes none of the look-alikes', () => {
    const missed = positiveSamples.filter((sample) => {
      const redacted = redact(sample.input);
      return sample.secrets.some((secret) => redacted.includes(secret));
    });
    const changed = negativeSamples.filter(
      (sample) => redact(sample.input) !== original(sample.input),
    );
    const detection = 1 - missed.length / positiveSamples.length;
    const falsePositives = changed.length / negativeSamples.length;
    console.log(
      `redaction corpus: detection ${(detection * 100).toFixed(1)}% of ${positiveSamples.length} positives, false positives ${(falsePositives * 100).toFixed(1)}% of ${negativeSamples.length} negatives`,
    );
    expect(
      missed.map((sample) => `${sample.name}: ${redact(sample.input)}`),
      'missed',
    ).toEqual([]);
    expect(
      changed.map((sample) => `${sample.name}: ${redact(sample.input)}`),
      'changed',
    ).toEqual([]);
  });

  it('is idempotent: redacting a redacted sample changes nothing', () => {
    for (const sample of positiveSamples) {
      const once = redact(sample.input);
      const twice =
        typeof sample.input === 'string'
          ? redactText(once)
          : JSON.stringify(redactJson(JSON.parse(once)));
      expect(twice, sample.name).toBe(once);
    }
  });
});
