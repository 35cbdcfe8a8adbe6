/**
 * Redaction of JSON-like values (tool results, function call arguments): every string is
 * scanned, the value under a secret-ish key (`password`, `apiKey`, `client_secret`, ...) is
 * replaced whole, and a number that is a card number (Luhn-checked) or sits under a phone key
 * becomes a marker. Object keys are kept; the input is never changed.
 */
import { passesLuhn } from './checksums.js';
import { defaultRedactionRules, isPhoneKey, isSecretKey } from './rules.js';
import { applySpans, findRedactionSpans, type RedactionRule, redactionMarker } from './scanner.js';

export interface RedactOptions {
  /** The rules to apply; default `defaultRedactionRules`. */
  rules?: readonly RedactionRule[];
}

/** `text` with every secret and piece of personal data the rules find replaced by a marker. */
export function redactText(text: string, options: RedactOptions = {}): string {
  const rules = options.rules ?? defaultRedactionRules;
  return applySpans(text, findRedactionSpans({ text, rules }));
}

const MARKER = /^\[REDACTED:[a-z_]+\]$/;

function redactScalarUnderKey(
  key: string,
  value: unknown,
  rules: readonly RedactionRule[],
): unknown | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  if (isSecretKey(key)) {
    if (value === '') return value;
    // A value a rule recognizes whole keeps the rule's kind (`[REDACTED:jwt]`).
    const scanned = typeof value === 'string' ? redactText(value, { rules }) : '';
    return MARKER.test(scanned) ? scanned : redactionMarker('secret');
  }
  if (isPhoneKey(key)) {
    const digits = String(value).replace(/\D/g, '');
    if (digits.length >= 7 && digits.length <= 15) return redactionMarker('phone');
  }
  return undefined;
}

function redactNumber(value: number): unknown {
  if (!Number.isSafeInteger(value) || value < 1e12) return value;
  const digits = String(value);
  return /^[2-6]/.test(digits) && passesLuhn(digits, { maxDigits: 19 })
    ? redactionMarker('card')
    : value;
}

function walk(value: unknown, rules: readonly RedactionRule[]): unknown {
  if (typeof value === 'string') return redactText(value, { rules });
  if (typeof value === 'number') return redactNumber(value);
  if (Array.isArray(value)) return value.map((item) => walk(item, rules));
  if (value !== null && typeof value === 'object') {
    const result: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      result[key] = redactScalarUnderKey(key, item, rules) ?? walk(item, rules);
    }
    return result;
  }
  return value;
}

/** A redacted copy of a JSON-like value (see the module comment). */
export function redactJson<T>(value: T, options: RedactOptions = {}): T {
  return walk(value, options.rules ?? defaultRedactionRules) as T;
}
