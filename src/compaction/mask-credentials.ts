/**
 * Credentials taken out of a text before it is stored or logged: a provider's error message
 * may quote the key it was sent (`Incorrect API key provided: sk-...`, `?key=AIza...`), and a
 * compaction event's `fallback.reason` is kept in the session for good.
 */

const MASK = '***';

const CREDENTIAL_PATTERNS: readonly { pattern: RegExp; replace: string }[] = [
  // `Bearer <token>`, `Basic <token>`.
  { pattern: /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi, replace: `$1 ${MASK}` },
  // `api_key=...`, `x-api-key: ...`, `"token": "..."`, `password=...` (a query string, a header).
  {
    pattern:
      /\b((?:x-)?(?:api[_-]?key|access[_-]?token|auth[_-]?token|token|secret|password|passwd|key)["']?\s*[:=]\s*["']?)[^\s"'&,;)}]{4,}/gi,
    replace: `$1${MASK}`,
  },
  // The userinfo of a URL: `postgres://app:hunter2@db/orrery`.
  { pattern: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/gi, replace: `$1${MASK}@` },
  // Well-known key shapes, wherever they appear.
  { pattern: /\bsk-[A-Za-z0-9_-]{8,}/g, replace: MASK },
  { pattern: /\bAIza[0-9A-Za-z_-]{20,}/g, replace: MASK },
  { pattern: /\bgh[pousr]_[A-Za-z0-9]{20,}/g, replace: MASK },
  { pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, replace: MASK },
];

/** `text` with API keys, bearer tokens, passwords and URL credentials replaced by `***`. */
export function maskCredentials(text: string): string {
  let masked = text;
  for (const { pattern, replace } of CREDENTIAL_PATTERNS) masked = masked.replace(pattern, replace);
  return masked;
}

/** Longest `fallback.reason` kept: the start of an error message says what went wrong. */
export const MAX_FALLBACK_REASON_CHARS = 1000;

/** A summarizer failure as a compaction's `fallback.reason`: its message, masked and bounded. */
export function fallbackReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const masked = maskCredentials(message);
  return masked.length <= MAX_FALLBACK_REASON_CHARS
    ? masked
    : `${masked.slice(0, MAX_FALLBACK_REASON_CHARS)}…`;
}
