import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../events/types.js';
import { userTextEvent } from '../../testing/event-builders.js';
import { toEventRowValues } from './rows.js';

describe('toEventRowValues', () => {
  it("writes the stored event's own JSON: no seq, no temp: state keys", () => {
    const plain = userTextEvent({ text: 'plain' });
    const withSeqAndTemp = {
      ...userTextEvent({ text: 'with extras' }),
      seq: 9,
      actions: { stateDelta: { 'temp:scratch': 1, kept: { nested: [1, 'two'] } } },
    } as NewEvent;
    for (const event of [plain, withSeqAndTemp]) {
      const values = toEventRowValues(event);
      expect(values.json).toBe(JSON.stringify(values.stored));
      expect(values.stored).not.toHaveProperty('seq');
      expect(values.stored.actions.stateDelta ?? {}).not.toHaveProperty('temp:scratch');
    }
  });
});
