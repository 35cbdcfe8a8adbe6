/**
 * An elision rule survives a trip through an ADK-JS export (docs/architecture.md#elision-the-cheap-tier):
 * the export carries it in `customMetadata.orrery.elision`, the import puts it back in
 * `actions.elision`, so the imported session's view equals the original's.
 */
import { describe, expect, it } from 'vitest';
import { fromAdkSessionJson } from '../events/adk-json.js';
import { toAdkSessionJson } from '../events/adk-json-export.js';
import type { Event } from '../events/types.js';
import {
  functionCallEvent,
  functionResponseEvent,
  modelTextEvent,
  userTextEvent,
} from '../testing/event-builders.js';
import { ELISION_PLACEHOLDER_PREFIX } from './elision.js';
import { assembleView } from './view.js';

function session(): Event[] {
  const whole = 'w'.repeat(5000);
  const events = [
    userTextEvent({ text: 'read the log', timestamp: 1 }),
    functionCallEvent({ calls: [{ id: 'a', name: 'read_log' }], timestamp: 2 }),
    functionResponseEvent({
      responses: [{ id: 'a', name: 'read_log', response: { text: whole } }],
      timestamp: 3,
    }),
    modelTextEvent({ text: 'the log says w', timestamp: 4 }),
    {
      id: 'rule',
      invocationId: 'rule-invocation',
      author: 'user',
      timestamp: 5,
      actions: {
        elision: {
          throughSeq: 3,
          minOutputBytes: 2000,
          trigger: 'token_threshold' as const,
          tokensBefore: 1500,
          tokensAfter: 120,
        },
      },
    },
    userTextEvent({ text: 'and then?', timestamp: 6 }),
  ];
  return events.map((event, index) => ({ ...event, seq: index + 1 }));
}

describe('an elision rule through an ADK-JS export and back', () => {
  for (const casing of ['camel', 'snake'] as const) {
    it(`keeps the rule, so the view is the original's (${casing})`, () => {
      const original = session();
      const exported = toAdkSessionJson({
        session: { sessionId: 's', appName: 'app', userId: 'u', state: {} },
        events: original,
        casing,
        dialect: 'adk-js',
        timestampUnit: 'milliseconds',
      });
      const imported = fromAdkSessionJson(JSON.parse(JSON.stringify(exported))).events as Event[];
      expect(imported[4]?.actions.elision).toEqual(original[4]?.actions.elision);
      const before = assembleView({ tail: original });
      const after = assembleView({ tail: imported });
      expect(JSON.stringify(before.contents)).toContain(ELISION_PLACEHOLDER_PREFIX);
      expect(after.contents).toEqual(before.contents);
      expect(after.elision).toEqual(before.elision);
    });
  }
});
