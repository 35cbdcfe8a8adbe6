import { describe, expect, it } from 'vitest';
import { fromAdkSessionJson } from './adk-json.js';
import { toAdkEventJson } from './adk-json-export.js';

describe('an elision rule exported to ADK', () => {
  it('rides in customMetadata.orrery, never in actions (ADK forbids unknown action keys)', () => {
    const elision = {
      throughSeq: 4,
      minOutputBytes: 2000,
      trigger: 'token_threshold' as const,
      tokensBefore: 900,
      tokensAfter: 300,
    };
    const exported = toAdkEventJson(
      { id: 'x1', invocationId: 'i', author: 'user', timestamp: 1, actions: { elision }, seq: 5 },
      'snake',
    );
    expect(exported.actions).toEqual({});
    expect(exported.custom_metadata).toEqual({ orrery: { seq: 5, elision } });
    // An ADK reader of it sees an event with nothing to show; orrery reads the rule back.
    const imported = fromAdkSessionJson({ id: 's', state: {}, events: [exported] });
    expect(imported.events[0]?.actions.elision).toEqual(elision);
    expect(imported.events[0]?.seq).toBe(5);
  });
});
