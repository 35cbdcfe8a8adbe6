import { describe, expect, it } from 'vitest';
import { type ConformanceContext, make } from './context.js';

/** Stores copy on read and write: callers cannot change stored events or state. */
export function describeCopies(context: ConformanceContext): void {
  const { newSession, listAll } = context;
  describe('copies on read and write', () => {
    it('does not store later changes to the input event', async () => {
      const { service } = context;
      const key = await newSession();
      const event = make.message('original');
      await service.appendEvent({ ...key, event });
      event.content!.parts[0]!.text = 'changed';
      event.author = 'someone-else';
      const [stored] = await listAll(key);
      expect(stored?.content?.parts[0]?.text).toBe('original');
      expect(stored?.author).toBe('user');
    });

    it('does not store changes made to returned events or state', async () => {
      const { service } = context;
      const key = await newSession();
      const returned = await service.appendEvent({ ...key, event: make.withState({ a: 1 }) });
      returned.content!.parts[0]!.text = 'changed';
      const loaded = await service.getSession(key);
      loaded!.events[0]!.content!.parts[0]!.text = 'changed again';
      loaded!.state.a = 99;
      const view = await service.loadView(key);
      view.tail[0]!.actions.stateDelta = { a: 100 };
      const page = await service.listEvents(key);
      page.events[0]!.author = 'mutant';
      const again = await service.getSession({ ...key, events: 'full' });
      expect(again?.events[0]?.content?.parts[0]?.text).toBe('state change');
      expect(again?.events[0]?.actions.stateDelta).toEqual({ a: 1 });
      expect(again?.events[0]?.author).toBe('user');
      expect(again?.state).toEqual({ a: 1 });
    });
  });
}
