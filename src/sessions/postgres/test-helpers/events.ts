/** Small event builders shared by the PostgreSQL tests, benches and child-process workers. */
import type { NewEvent } from '../../../events/types.js';

let counter = 0;

export function userMessage(text: string, invocationId = `inv-${++counter}`): NewEvent {
  return {
    id: `event-${++counter}-${Math.random().toString(36).slice(2)}`,
    invocationId,
    author: 'user',
    timestamp: Date.now() / 1000,
    content: { role: 'user', parts: [{ text }] },
    actions: {},
  };
}

/** A rolling-summary compaction of `startSeq..endSeq`. */
export function compactionEvent(startSeq: number, endSeq: number, summary = 'summary'): NewEvent {
  return {
    id: `compaction-${++counter}-${Math.random().toString(36).slice(2)}`,
    invocationId: `compaction-inv-${counter}`,
    author: 'user',
    timestamp: Date.now() / 1000,
    actions: {
      compaction: {
        startSeq,
        endSeq,
        startTimestamp: 0,
        endTimestamp: 0,
        compactedContent: { role: 'model', parts: [{ text: summary }] },
        trigger: 'manual',
        tokensBefore: 100,
        tokensAfter: 10,
        summarizer: 'test',
      },
    },
  };
}
