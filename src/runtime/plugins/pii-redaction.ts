import type { AfterToolContext, Plugin } from './plugin.js';

export interface RedactionPattern {
  /** Shown in the marker: `[REDACTED:<kind>]`. */
  kind: string;
  pattern: RegExp;
  /** Extra check on a match (e.g. Luhn for card numbers); `false` keeps the text. */
  validate?: (match: string) => boolean;
  /** Default: the marker. */
  replace?: (match: string, marker: string) => string;
}

export interface PiiRedactionPluginOptions {
  /** Extra patterns, redacted as `[REDACTED:custom]` (or their own kind). */
  patterns?: Array<RegExp | RedactionPattern>;
}

/** Luhn checksum: true for plausible card numbers, so order ids and timestamps stay. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let index = digits.length - 1; index >= 0; index--) {
    let digit = digits.charCodeAt(index) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

function looksLikePhone(match: string): boolean {
  const digits = match.replace(/\D/g, '');
  if (digits.length < 9 || digits.length > 15) return false;
  // A bare digit run is more often an id or a timestamp than a phone number.
  if (/^\d+$/.test(match)) return false;
  // ISO dates and times are not phone numbers.
  if (/^\d{4}-\d{2}-\d{2}/.test(match)) return false;
  // Dotted runs are IP addresses and versions unless shaped like 555.123.4567.
  if (match.includes('.') && !/^(?:\+\d{1,3}[ .]?)?\d{3}\.\d{3}\.\d{4}$/.test(match)) return false;
  return true;
}

/** Secrets first (so a key holding digits is not half-eaten by the phone rule), then PII. */
export const defaultRedactionPatterns: readonly RedactionPattern[] = [
  {
    kind: 'bearer_token',
    pattern: /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi,
    replace: (_match, marker) => `Bearer ${marker}`,
  },
  { kind: 'api_key', pattern: /\bsk-[A-Za-z0-9_-]{16,}/g },
  { kind: 'api_key', pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { kind: 'api_key', pattern: /\bgh[pousr]_[A-Za-z0-9]{30,}/g },
  { kind: 'api_key', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { kind: 'email', pattern: /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g },
  {
    kind: 'card',
    pattern: /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g,
    validate: (match) => passesLuhn(match.replace(/\D/g, '')),
  },
  {
    kind: 'phone',
    pattern: /(?<![\w+.-])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d[\d .-]{6,16}\d(?!\w)/g,
    validate: looksLikePhone,
  },
];

function toGlobal(pattern: RegExp): RegExp {
  return pattern.flags.includes('g') ? pattern : new RegExp(pattern.source, `${pattern.flags}g`);
}

/** Redacts every string inside a JSON-like value (object keys are kept). */
export function redactValue(value: unknown, patterns: readonly RedactionPattern[]): unknown {
  if (typeof value === 'string') return redactText(value, patterns);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, patterns));
  if (value !== null && typeof value === 'object') {
    const result: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) result[key] = redactValue(item, patterns);
    return result;
  }
  return value;
}

export function redactText(text: string, patterns: readonly RedactionPattern[]): string {
  let result = text;
  for (const { kind, pattern, validate, replace } of patterns) {
    const marker = `[REDACTED:${kind}]`;
    result = result.replace(toGlobal(pattern), (match) => {
      if (validate && !validate(match)) return match;
      return replace ? replace(match, marker) : marker;
    });
  }
  return result;
}

/**
 * Redacts emails, phone numbers, card numbers (Luhn-checked), API keys and bearer tokens from
 * tool results before they are stored, so neither the session nor any summary holds them.
 * Put it before `ToolOutputCapPlugin` so a cut cannot split a secret past the patterns.
 */
export class PiiRedactionPlugin implements Plugin {
  readonly name = 'pii_redaction';
  readonly patterns: readonly RedactionPattern[];

  constructor(options: PiiRedactionPluginOptions = {}) {
    const extra = (options.patterns ?? []).map((pattern) =>
      pattern instanceof RegExp ? { kind: 'custom', pattern } : pattern,
    );
    this.patterns = [...defaultRedactionPatterns, ...extra];
  }

  afterTool(context: AfterToolContext): unknown {
    return redactValue(context.result, this.patterns);
  }
}
