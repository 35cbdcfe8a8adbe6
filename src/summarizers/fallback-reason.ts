/**
 * Why a fallback summarizer ran, as stored in a compaction's `fallback.reason`: the primary's
 * error message with credentials masked (a provider's message may quote the key it was sent, and
 * the reason stays in the session for good), bounded in length.
 */

import { maskCredentials } from '../redaction/mask-credentials.js';
import { errorMessage } from '../util/error-message.js';

/** Longest `fallback.reason` kept: the start of an error message says what went wrong. */
export const MAX_FALLBACK_REASON_CHARS = 1000;

export function fallbackReason(error: unknown): string {
  const masked = maskCredentials(errorMessage(error));
  return masked.length <= MAX_FALLBACK_REASON_CHARS
    ? masked
    : `${masked.slice(0, MAX_FALLBACK_REASON_CHARS)}…`;
}
