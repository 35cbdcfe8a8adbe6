/**
 * Credentials out of messages: the one helper every error and log line goes through. It takes
 * out URL passwords (`postgres://app:***@db`, any scheme), `Authorization`/api-key header
 * values, `password=`-style fields and known token formats, and leaves the rest of the message
 * (host names, addresses, paths) readable.
 */
import { credentialRules } from './rules.js';
import { applySpans, findRedactionSpans } from './scanner.js';

/** `text` with every credential replaced: a URL's password by `***`, the rest by a marker. */
export function maskCredentials(text: string): string {
  const spans = findRedactionSpans({ text, rules: credentialRules });
  if (spans.length === 0) return text;
  // `***` in a URL, as database tools print it; markers elsewhere say what was there.
  return applySpans(text, spans).replace(/:\[REDACTED:password\]@/g, ':***@');
}
