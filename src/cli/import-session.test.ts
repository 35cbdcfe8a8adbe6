import { describe, expect, it } from 'vitest';
import { toAdkSessionJson } from '../events/adk-json.js';
import type { Event, NewEvent } from '../events/types.js';
import { importAdk } from '../importers/adk.js';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import { compactionEvent, modelTextEvent, userTextEvent } from '../testing/event-builders.js';
import { appendImported } from './import-session.js';

describe('appendImported', () => {
  it('stores an imported compaction over the same events (positions become stored seqs)', async () => {
    const events: Array<NewEvent & { seq: number }> = [
      { ...userTextEvent({ text: 'old question', timestamp: 1 }), seq: 3 },
      { ...modelTextEvent({ text: 'old answer', timestamp: 2 }), seq: 4 },
      { ...compactionEvent({ startSeq: 3, endSeq: 4, timestamp: 3 }), seq: 6 },
      { ...userTextEvent({ text: 'new question', timestamp: 4 }), seq: 7 },
    ];
    const result = importAdk(toAdkSessionJson({ session: {}, events }));
    const service = new InMemorySessionService();
    const key = { appName: 'a', userId: 'u', sessionId: 's' };
    await service.createSession(key);
    await appendImported({ service, key, result });
    const view = await service.loadView(key);
    expect(view.checkpoint?.actions.compaction).toMatchObject({ startSeq: 1, endSeq: 2 });
    expect(view.tail.map((event: Event) => event.content?.parts[0]?.text)).toEqual([
      'new question',
    ]);
  });
});
