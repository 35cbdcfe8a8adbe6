/**
 * Redaction of JSON-like values (tool results, function call arguments): every string is
 * scanned, the value under a secret-ish key (`password`, `apiKey`, `client_secret`, `pwd`, ...)
 * or under the value key of a field named so (`{ name: 'DB_PASSWORD', value }`) is replaced whole, and a number that is a card number (Luhn-checked) or sits under a phone key
 * becomes a marker. Object keys are kept; the input is never changed.
 */
import { MAX_JSON_DEPTH } from '../events/json-value.js';
import { passesLuhn } from './checksums.js';
import { RedactionError } from './errors.js';
import {
  defaultRedactionRules,
  isPhoneKey,
  isSecretKey,
  isValueKey,
  namesSecretField,
} from './rules.js';
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
  secretField: boolean,
): unknown | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  if (isSecretKey(key) || (secretField && isValueKey(key))) {
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

/** Where the walk is, for the error that names it (`$.a[0].b`). */
function pathOf(keys: readonly (string | number)[]): string {
  return keys
    .map((key) =>
      typeof key === 'number'
        ? `[${key}]`
        : /^[A-Za-z_$][\w$]*$/.test(key)
          ? `.${key}`
          : `[${JSON.stringify(key)}]`,
    )
    .reduce((path, step, index) => {
      // A path hundreds of levels deep is named by its ends.
      if (keys.length > 12 && index >= 6 && index < keys.length - 6) {
        return index === 6 ? `${path}…(${keys.length - 12} more)…` : path;
      }
      return path + step;
    }, '$');
}

/**
 * Recursive, so bounded: past `MAX_JSON_DEPTH` levels (what no store accepts) a typed
 * `RedactionError`, never the engine's `RangeError`. `keys` is the path so far.
 */
function walk(value: unknown, rules: readonly RedactionRule[], keys: (string | number)[]): unknown {
  if (typeof value === 'string') return redactText(value, { rules });
  if (typeof value === 'number') return redactNumber(value);
  if (value === null || typeof value !== 'object') return value;
  if (keys.length >= MAX_JSON_DEPTH) {
    throw new RedactionError({
      path: pathOf(keys),
      reason: 'too_deep',
      message: `nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays; not redacted, not stored`,
    });
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => {
      keys.push(index);
      const redacted = walk(item, rules, keys);
      keys.pop();
      return redacted;
    });
  }
  const result: Record<string, unknown> = {};
  // `{ name: 'DB_PASSWORD', value: '...' }`: the value is a secret under a plain key.
  const secretField = namesSecretField(value as Record<string, unknown>);
  for (const [key, item] of Object.entries(value)) {
    keys.push(key);
    result[key] = redactScalarUnderKey(key, item, rules, secretField) ?? walk(item, rules, keys);
    keys.pop();
  }
  return result;
}

/**
 * A redacted copy of a JSON-like value (see the module comment). Throws `RedactionError` for a
 * value nested deeper than `MAX_JSON_DEPTH`.
 */
export function redactJson<T>(value: T, options: RedactOptions = {}): T {
  return walk(value, options.rules ?? defaultRedactionRules, []) as T;
}
