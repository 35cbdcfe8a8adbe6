/** Whether a request's contents pair every function call with its response (replay's orphans). */
import type { Content } from '../../events/types.js';

/**
 * A request holds an unpaired call or response: a response with no earlier call, or a call
 * that no later content answers (a pending call in a final model content is allowed).
 */
export function hasUnpaired(contents: Content[]): boolean {
  const open = new Set<string>();
  const seen = new Set<string>();
  for (const content of contents) {
    for (const part of content.parts) {
      if (part.functionCall) {
        open.add(part.functionCall.id);
        seen.add(part.functionCall.id);
      }
      if (part.functionResponse) {
        if (!seen.has(part.functionResponse.id) || !open.has(part.functionResponse.id)) return true;
        open.delete(part.functionResponse.id);
      }
    }
  }
  if (open.size === 0) return false;
  const last = contents[contents.length - 1];
  if (last?.role !== 'model') return true;
  const pending = new Set(
    last.parts.flatMap((part) => (part.functionCall ? [part.functionCall.id] : [])),
  );
  return [...open].some((id) => !pending.has(id));
}
