/**
 * The default redaction rules: secrets first (a key holding digits is not half-taken by a PII
 * rule, and the merged span is named after the secret), then personal data. Every pattern is
 * bounded and anchored (see `PatternRule`), so each runs in linear time on any input.
 */
import { passesIbanChecksum, passesLuhn } from './checksums.js';
import type { RedactionCandidate, RedactionRule, ScanRule } from './scanner.js';

/** Words that make a key's value a secret when the key ends with one (`DB_PASSWORD`, `apiKey`). */
export const SECRET_KEY_WORDS = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'apikey',
  'secretkey',
  'accesskey',
  'privatekey',
  'authorization',
  'credential',
  'credentials',
  'cookie',
] as const;

/** `api_key`, `API-Key`, `apiKey` all become `apikey`. */
export function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/**
 * Short names a password goes by, as a whole key (`pw`, `pass`) or its end (`dbPwd`): too short
 * to search for in text, where `pwd` is also a shell command.
 */
export const SECRET_KEY_NAMES = ['pw', 'pass', 'passcode', 'pincode'] as const;
const SECRET_KEY_ENDINGS = ['pwd'] as const;

/**
 * True for a key whose value is a secret: it ends with one of `SECRET_KEY_WORDS` (or `pwd`), or
 * is one of `SECRET_KEY_NAMES`.
 */
export function isSecretKey(key: string): boolean {
  const normalized = normalizeKey(key);
  return (
    SECRET_KEY_WORDS.some((word) => normalized.endsWith(word)) ||
    SECRET_KEY_ENDINGS.some((word) => normalized.endsWith(word)) ||
    (SECRET_KEY_NAMES as readonly string[]).includes(normalized)
  );
}

/** Keys that name a field (`{ name: 'DB_PASSWORD', value: '...' }`, `{ Name, Value }`). */
const NAMING_KEYS = new Set([
  'name',
  'key',
  'field',
  'id',
  'label',
  'param',
  'parameter',
  'variable',
]);
/** Keys that hold the named field's value. */
const VALUE_KEYS = new Set(['value', 'val', 'defaultvalue', 'data']);

/**
 * True for an object that names a secret field and holds its value under another key: an
 * environment entry `{ name: 'DB_PASSWORD', value: 'hunter2' }`, a form field `{ id:
 * 'password', value }`, a parameter `{ Name: '/prod/db/password', Value }`. Its value keys are
 * then secret keys, whatever they are called.
 */
export function namesSecretField(value: Record<string, unknown>): boolean {
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === 'string' && NAMING_KEYS.has(normalizeKey(key)) && isSecretKey(item)) {
      return true;
    }
  }
  return false;
}

/** A key that holds a named field's value (see `namesSecretField`). */
export function isValueKey(key: string): boolean {
  return VALUE_KEYS.has(normalizeKey(key));
}

const PHONE_KEY = /(?:phone|mobile|cell|tel|telephone|fax|sms|whatsapp)$/;

/** True for a key whose value is a phone number (`phone`, `mobileNumber` is not: kept simple). */
export function isPhoneKey(key: string): boolean {
  return PHONE_KEY.test(normalizeKey(key));
}

// One alternation of key words as they are written in text: `api_key`, `api-key`, `apiKey`.
const KEY_WORD =
  '(?:password|passwd|passphrase|secret|token|api[_-]?key|secret[_-]?key|access[_-]?key|private[_-]?key|authorization|credentials?|cookie)';
// A key word, then `:` or `=` (a quote may close the key first): `DB_PASSWORD=`, `"apiKey": `.
// The key's own start is not matched (it is kept), which keeps each attempt short.
const KEY_PREFIX = `${KEY_WORD}["']?[ \\t]{0,8}[:=][ \\t]{0,8}`;
const AUTH_SCHEME = '(?:(?:Bearer|Basic|Token|Digest|Bot)[ \\t]{1,4})?';
// Not an earlier redaction's marker, with or without its scheme: redaction is idempotent.
const NOT_MARKER = `(?!${AUTH_SCHEME}\\[REDACTED:)`;
/** Where every `KEY_PREFIX` rule's match starts: one test per text for the three of them. */
const HAS_KEY_PREFIX = new RegExp(KEY_PREFIX, 'i');

/** `-----BEGIN ... PRIVATE KEY-----` to its END line, or to the end of its base64 when cut. */
const privateKeyRule: ScanRule = {
  kind: 'private_key',
  *scan(text: string) {
    const begin = /-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY( BLOCK)?-----/g;
    // Where the next END line starts, remembered so many BEGINs do not search the text again.
    let nextEnd = -2;
    for (let found = begin.exec(text); found !== null; found = begin.exec(text)) {
      const bodyStart = found.index + found[0].length;
      if (nextEnd !== -1 && nextEnd < bodyStart) nextEnd = text.indexOf('-----END', bodyStart);
      let end: number;
      if (nextEnd !== -1) {
        const close = text.indexOf('-----', nextEnd + 8);
        end = close === -1 ? text.length : close + 5;
      } else {
        // Cut (a capped tool output): the base64 body, escaped newlines included.
        const body = /[A-Za-z0-9+/=\s\\]*/y;
        body.lastIndex = bodyStart;
        body.exec(text);
        end = body.lastIndex;
      }
      yield { start: found.index, end };
      begin.lastIndex = Math.max(end, begin.lastIndex);
    }
  },
};

/** Context before a candidate, on its line, lower-cased (bounded: 40 characters). */
function contextBefore(candidate: RedactionCandidate, length = 40): string {
  const from = Math.max(0, candidate.start - length);
  const before = candidate.text.slice(from, candidate.start);
  const lineStart = before.lastIndexOf('\n');
  return (lineStart === -1 ? before : before.slice(lineStart + 1)).toLowerCase();
}

function digitsOf(text: string): string {
  return text.replace(/\D/g, '');
}

/** Card brands start with 2-6 (Mastercard, Amex/Diners/JCB, Visa, Mastercard, Discover/UnionPay). */
function looksLikeCard(candidate: RedactionCandidate): boolean {
  const first = candidate.match.charCodeAt(0);
  return (
    first >= 50 &&
    first <= 54 &&
    passesLuhn(candidate.match, { separators: ' .-', minDigits: 13, maxDigits: 19 })
  );
}

function looksLikeSsn(candidate: RedactionCandidate): boolean {
  const [area = '', group = '', serial = ''] = candidate.match.split('-');
  return area !== '000' && area !== '666' && area[0] !== '9' && group !== '00' && serial !== '0000';
}

const PHONE_CONTEXT = /(?:phone|tel|mobile|cell|fax|sms|whatsapp|call|text|contact|dial)/;

/**
 * A bare 10-digit run is a phone number only right after a phone word: nothing but letters,
 * spaces and punctuation between them (`phone: 4155550132`, not `phone: 1, order 4155550132`).
 */
function bareNumberIsPhone(candidate: RedactionCandidate): boolean {
  const before = contextBefore(candidate, 24);
  const lastDigit = before.search(/\d[^\d]*$/);
  return PHONE_CONTEXT.test(lastDigit === -1 ? before : before.slice(lastDigit + 1));
}

function looksLikeFormattedPhone(candidate: RedactionCandidate): boolean {
  const { match } = candidate;
  // Digit groups without `+`, parentheses or dashes are a phone number only in the 3-3-4 shape.
  if (!/[+()-]/.test(match) && !/^\d{3}[ .]\d{3}[ .]\d{4}$/.test(match)) return false;
  const digits = digitsOf(match);
  if (digits.length < 9 || digits.length > 15) return false;
  // ISO dates and times are not phone numbers.
  if (/^\d{4}-\d{2}-\d{2}/.test(match) || /^\d{2}-\d{2}-\d{4}/.test(match)) return false;
  // Dotted runs are IP addresses and versions unless shaped like 555.123.4567.
  return !match.includes('.') || /^(?:\+\d{1,3}[ .]?)?\d{3}\.\d{3}\.\d{4}$/.test(match);
}

const IPV4_OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';

/** Loopback, unspecified and broadcast addresses say nothing about anyone: kept. */
function isPersonalIpv4(candidate: RedactionCandidate): boolean {
  const { match } = candidate;
  if (match.startsWith('127.') || match === '0.0.0.0' || match === '255.255.255.255') return false;
  // `v1.2.3.4`, `version 1.2.3.4`: a version, not an address.
  return !/(?:^|[^a-z])v(?:ersion)?[ :=]{0,2}$/.test(contextBefore(candidate, 12));
}

/** Eight groups, or fewer with one `::`; at least three groups; loopback kept. */
function isIpv6(candidate: RedactionCandidate): boolean {
  const { match } = candidate;
  const halves = match.split('::');
  if (halves.length > 2) return false;
  const groups = match.split(':').filter((group) => group !== '');
  if (halves.length === 1 ? groups.length !== 8 : groups.length < 3 || groups.length > 7) {
    return false;
  }
  return groups.every((group) => group.length <= 4);
}

/** 40 base64 characters with upper, lower and a digit: the shape of an AWS secret key. */
function looksLikeAwsSecret(candidate: RedactionCandidate): boolean {
  const { match } = candidate;
  return /[A-Z]/.test(match) && /[a-z]/.test(match) && /\d/.test(match) && !match.startsWith('/');
}

export const defaultRedactionRules: readonly RedactionRule[] = [
  privateKeyRule,
  // Credentials in a URL: `scheme://user:password@host`; the user name stays. A password may
  // hold an `@` of its own: the match backs off to the last one before the host. Malformed
  // URLs too (docs/resilience.md#redaction): `http//`, `http:/`, `http:\\`, a bare `//`.
  {
    kind: 'password',
    pattern:
      /(?:(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,30}(?::\/{1,3}|\/{2,3}|:\\{1,2})|(?<![A-Za-z0-9+.:/\\-])\/\/)[^\s/\\:@]{0,256}:(?<secret>(?!\[REDACTED:)[^\s/?#\\]{1,256})@/,
    requires: '@',
  },
  // No scheme at all: `user:password@` before an IP address or a `host:port`, as in a DSN.
  {
    kind: 'password',
    pattern:
      /(?<![A-Za-z0-9._~%+:/\\@-])[A-Za-z0-9._~%+-]{1,64}:(?<secret>(?!\[REDACTED:)[^\s/?#@:\\]{1,256})@(?=\[[0-9A-Fa-f:.]{2,45}\]|\d{1,3}(?:\.\d{1,3}){3}(?![\d.])|[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}:\d{1,5}(?!\d))/,
    requires: '@',
  },
  {
    kind: 'jwt',
    pattern:
      /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,4096}\.[A-Za-z0-9_-]{5,16384}\.[A-Za-z0-9_-]{0,4096}(?![A-Za-z0-9_-])/,
    requires: 'eyJ',
  },
  {
    kind: 'aws_access_key',
    pattern: /(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])/,
    requires: /AKIA|ASIA|ABIA|ACCA/,
  },
  {
    kind: 'api_key',
    pattern: /(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,247}(?![A-Za-z0-9])/,
    requires: 'k_',
  },
  {
    kind: 'api_key',
    pattern: /(?<![A-Za-z0-9_])whsec_[A-Za-z0-9]{16,128}/,
    requires: 'whsec_',
  },
  { kind: 'api_key', pattern: /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{16,256}/, requires: 'sk-' },
  {
    kind: 'api_key',
    pattern: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/,
    requires: 'AIza',
  },
  {
    kind: 'oauth_token',
    pattern: /(?<![A-Za-z0-9_.-])ya29\.[0-9A-Za-z_-]{20,2048}/,
    requires: 'ya29.',
  },
  {
    kind: 'api_key',
    pattern: /(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{30,255}/,
    requires: /gh[pousr]_/,
  },
  {
    kind: 'api_key',
    pattern: /(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{22,255}/,
    requires: 'github_pat_',
  },
  {
    kind: 'api_key',
    pattern: /(?<![A-Za-z0-9-])xox[abposre]-[A-Za-z0-9-]{10,255}/,
    requires: 'xox',
  },
  {
    kind: 'api_key',
    pattern: /(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,64}/,
    requires: 'glpat-',
  },
  {
    kind: 'bearer_token',
    pattern: /\bBearer[ \t]{1,8}(?<secret>(?!\[REDACTED:)[A-Za-z0-9._~+/=-]{8,4096})/i,
  },
  // `password: "two words"`, `"apiKey": "..."`: the quoted value (to the line's end when the
  // closing quote was cut off).
  {
    kind: 'secret',
    pattern: new RegExp(
      `${KEY_PREFIX}"${AUTH_SCHEME}(?<secret>${NOT_MARKER}(?:[^"\\\\\\n]|\\\\.){1,1024})"?`,
      'i',
    ),

    requires: HAS_KEY_PREFIX,
  },
  // The same with single quotes (a named group cannot repeat within one pattern).
  {
    kind: 'secret',
    pattern: new RegExp(
      `${KEY_PREFIX}'${AUTH_SCHEME}(?<secret>${NOT_MARKER}[^'\\n]{1,1024})'`,
      'i',
    ),

    requires: HAS_KEY_PREFIX,
  },
  // `password=hunter2`, `Authorization: Basic dXNl...`: the unquoted value, to a space or `,;&`.
  // Not a URL (`credentials: http://...` in an error): the URL rule masks its password only.
  {
    kind: 'secret',
    pattern: new RegExp(
      `${KEY_PREFIX}${AUTH_SCHEME}(?<secret>${NOT_MARKER}(?![A-Za-z][A-Za-z0-9+.-]{0,30}://)[^\\s"',;&<>{}()[\\]]{1,1024})`,
      'i',
    ),

    requires: HAS_KEY_PREFIX,
  },
  // `?token=...&api_key=...` in a URL.
  {
    kind: 'secret',
    pattern:
      /[?&](?:access_token|token|api_?key|key|secret|client_secret|password|passwd|sig|signature)=(?<secret>(?!\[REDACTED:)[^&\s#"'<>]{1,4096})/i,
    requires: '=',
  },
  {
    kind: 'aws_secret_key',
    pattern: /(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/,
    validate: looksLikeAwsSecret,
  },
  {
    kind: 'email',
    // `//user:password@host` is a URL's credentials (the rule above), not an address.
    validate: (candidate) =>
      candidate.text[candidate.start - 1] !== ':' ||
      !/\/\/[^\s/:@]{0,256}:$/.test(contextBefore(candidate, 260)),
    // Internationalized too (`josé@exämple.de`, a punycode `xn--` top-level domain).
    pattern:
      /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}\p{M}._%+-]{1,64}@[\p{L}\p{N}\p{M}-]{1,63}(?:\.[\p{L}\p{N}\p{M}-]{1,63}){0,8}\.(?:\p{L}[\p{L}\p{M}]{1,23}|xn--[a-z0-9-]{1,59})(?![\p{L}\p{N}\p{M}-])/u,
    requires: '@',
  },
  // An address written to dodge scrapers: `jane (at) example (dot) com`, `jane [at] example.com`.
  {
    kind: 'email',
    pattern:
      /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]{1,64}[ \t]{0,3}[([{<][ \t]{0,3}at[ \t]{0,3}[)\]}>][ \t]{0,3}[\p{L}\p{N}-]{1,63}(?:[ \t]{0,3}(?:[([{<][ \t]{0,3}dot[ \t]{0,3}[)\]}>]|\.)[ \t]{0,3}[\p{L}\p{N}-]{1,63}){1,8}(?![\p{L}\p{N}-])/iu,
    requires: /[([{<][ \t]{0,3}at[ \t]{0,3}[)\]}>]/i,
  },
  {
    kind: 'iban',
    pattern:
      /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?![A-Za-z0-9])/,
    validate: (candidate) => passesIbanChecksum(candidate.match),
    requires: /[A-Z]{2}\d{2}/,
  },
  {
    kind: 'card',
    pattern:
      /(?<![\d.,-])(?:\d{13,19}|\d{4}([ .-])\d{4}\1\d{4}\1\d{1,7}|\d{4}([ .-])\d{6}\2\d{4,5})(?!\d|[.,-]\d)/,
    validate: looksLikeCard,
  },
  {
    kind: 'ssn',
    pattern: /(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])/,
    validate: looksLikeSsn,
    requires: '-',
  },
  {
    kind: 'phone',
    pattern:
      /(?<![\w+.-])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d[\d .-]{6,16}\d(?![\w]|[.-]\d)/,
    validate: looksLikeFormattedPhone,
  },
  // A bare North American number (`4155550132`, `+14155550132`) after a phone word.
  {
    kind: 'phone',
    pattern: /(?<![\d.+-])(?:\+?1)?[2-9]\d{2}[2-9]\d{6}(?![\d]|[.,]\d)/,
    validate: bareNumberIsPhone,
    requires: /\d{10}/,
  },
  {
    kind: 'ip_address',
    pattern: new RegExp(`(?<![\\d.])${IPV4_OCTET}(?:\\.${IPV4_OCTET}){3}(?![\\d]|\\.\\d)`),
    validate: isPersonalIpv4,
  },
  {
    kind: 'ip_address',
    pattern: /(?<![0-9A-Fa-f:])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![0-9A-Fa-f:])/,
    validate: isIpv6,
    // Two of its `group:` repetitions.
    requires: /:[0-9A-Fa-f]{0,4}:/,
  },
];

/** The secret classes only: what `maskCredentials` takes out of errors and log lines. */
export const credentialRules: readonly RedactionRule[] = defaultRedactionRules.filter(
  (rule) => !['email', 'iban', 'card', 'ssn', 'phone', 'ip_address'].includes(rule.kind),
);
