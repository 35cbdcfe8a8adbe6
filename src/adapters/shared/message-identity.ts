/**
 * A message's identity: a hash of what it says (texts, thoughts, call ids and names, results,
 * files), chained with the identity of everything before it. Equal chains at index `i` mean the
 * whole prefix `0..i` is equal, so one comparison finds where a prompt left the stored log.
 * Signatures and call arguments are left out: the AI SDK may rewrite them (schema defaults,
 * provider metadata) between the response and the next prompt, and a call's id names it.
 */
import { createHash } from 'node:crypto';
import type { Content, Part } from '../../events/types.js';

function partIdentity(part: Part): unknown {
  if (part.functionCall) return ['call', part.functionCall.id, part.functionCall.name];
  if (part.functionResponse) {
    const response = part.functionResponse;
    return ['response', response.id, response.name, response.response];
  }
  if (part.inlineData) return ['data', part.inlineData.mimeType, part.inlineData.data];
  if (part.fileData) return ['file', part.fileData.fileUri];
  if (part.text !== undefined) return [part.thought ? 'thought' : 'text', part.text];
  return ['other', part];
}

/** The identity of one message's content. */
export function contentIdentity(content: Content): string {
  return createHash('sha256')
    .update(JSON.stringify([content.role, content.parts.map(partIdentity)]))
    .digest('base64url');
}

/** The chained identity of a message after `previous` (`''` for the first message). */
export function chainIdentity(previous: string, identity: string): string {
  return createHash('sha256').update(`${previous}\n${identity}`).digest('base64url');
}

/** Chained identities of a list of contents, one per content. */
export function chainIdentities(contents: readonly Content[]): string[] {
  const chains: string[] = [];
  let previous = '';
  for (const content of contents) {
    previous = chainIdentity(previous, contentIdentity(content));
    chains.push(previous);
  }
  return chains;
}
