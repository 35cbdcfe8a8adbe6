import { describe, expect, it } from 'vitest';
import { InvalidEventError } from '../../events/errors.js';
import { MAX_JSON_DEPTH } from '../../events/json-value.js';
import type { Event, NewEvent } from '../../events/types.js';
import { type ConformanceContext, make, rejection } from './context.js';

/** Events are JSON: any text, exact numbers, undefined left out, values JSON cannot hold refused. */
export function describeEventData(context: ConformanceContext): void {
  const { newSession, appendMany, listAll } = context;
  describe('event data', () => {
    async function roundTrip(event: NewEvent): Promise<Event> {
      const { service } = context;
      const key = await newSession();
      const stored = await service.appendEvent({ ...key, event });
      const [read] = await listAll(key);
      expect(read).toStrictEqual(stored);
      const view = await service.loadView(key);
      expect(view.tail[0]).toStrictEqual(stored);
      return stored;
    }

    it('stores any text as it is: emoji, right-to-left, NUL, lone surrogates', async () => {
      const text = 'emoji 😀👩🏽‍💻 RTL שלום مرحبا NUL[\u0000] lone[\ud800] tab\tnew\nline \u2028';
      const event = make.functionCall('call-1', 'read_file', { path: 'bin\u0000ary', text });
      event.content!.parts.push({ text });
      event.customMetadata = { [`key\u0000${text}`]: text };
      const stored = await roundTrip(event);
      expect(stored).toEqual({ ...event, seq: 1 });
      expect(stored.content?.parts[1]?.text).toBe(text);
    });

    it('round-trips numbers exactly: microsecond timestamps, float edges, large integers', async () => {
      const args = {
        micro: 1_732_912_345.123456,
        third: 1 / 3,
        big: Number.MAX_SAFE_INTEGER,
        negative: -Number.MAX_SAFE_INTEGER,
        huge: 1.7976931348623157e308,
        tiny: 5e-324,
        exponent: 1e21,
        small: 1e-7,
        list: [0.1 + 0.2, -1.5, 0],
      };
      const event = {
        ...make.functionCall('call-1', 'numbers', args),
        timestamp: 1_732_912_345.123456,
      };
      const stored = await roundTrip(event);
      expect(stored.timestamp).toBe(1_732_912_345.123456);
      expect(stored.content?.parts[0]?.functionCall?.args).toStrictEqual(args);
    });

    it('leaves undefined properties out, the same on every read', async () => {
      const event = {
        ...make.functionCall('call-1', 'tool', { kept: 1, dropped: undefined }),
        branch: undefined,
        customMetadata: { note: undefined, other: null },
      } as NewEvent;
      const stored = await roundTrip(event);
      expect(stored).toEqual({ ...event, seq: 1 });
      expect('branch' in stored).toBe(false);
      expect(stored.content?.parts[0]?.functionCall?.args).toStrictEqual({ kept: 1 });
      expect(stored.customMetadata).toStrictEqual({ other: null });
    });

    it('stores a 5 MB function response and nested arguments', async () => {
      const { service } = context;
      const big = 'x'.repeat(5 * 1024 * 1024);
      let nested: Record<string, unknown> = { leaf: [1, 'two', null] };
      for (let level = 0; level < MAX_JSON_DEPTH - 10; level++) nested = { level, nested };
      const key = await newSession();
      await service.appendEvent({ ...key, event: make.functionCall('call-1', 'dump', nested) });
      const response: NewEvent = {
        ...make.message('unused'),
        author: 'agent',
        content: {
          role: 'user',
          parts: [{ functionResponse: { id: 'call-1', name: 'dump', response: { output: big } } }],
        },
      };
      await service.appendEvent({ ...key, event: response });
      const [call, read] = await listAll(key);
      expect(call?.content?.parts[0]?.functionCall?.args).toStrictEqual(nested);
      expect(read?.content?.parts[0]?.functionResponse?.response.output).toBe(big);
    });

    const deep = (): Record<string, unknown> => {
      let value: Record<string, unknown> = {};
      for (let level = 0; level < MAX_JSON_DEPTH + 5; level++) value = { value };
      return value;
    };
    const cyclic = (): Record<string, unknown> => {
      const value: Record<string, unknown> = { name: 'loop' };
      value.self = value;
      return value;
    };
    it.each([
      ['NaN', () => ({ score: Number.NaN }), 'score'],
      ['Infinity', () => ({ score: Number.POSITIVE_INFINITY }), 'score'],
      ['undefined in an array', () => ({ list: [1, undefined] }), 'list[1]'],
      ['a Date', () => ({ when: new Date(0) }), 'when'],
      ['a Map', () => ({ map: new Map([[1, 2]]) }), 'map'],
      ['a bigint', () => ({ count: 10n }), 'count'],
      ['a function', () => ({ callback: () => 1 }), 'callback'],
      ['a cycle', () => ({ loop: cyclic() }), 'loop.self'],
      ['nesting too deep', deep, ''],
    ])(
      'rejects %s in an event with InvalidEventError naming it; stores nothing',
      async (_, args, path) => {
        const { service } = context;
        const key = await newSession();
        const event = make.functionCall('call-1', 'tool', args());
        const error = await rejection(service.appendEvent({ ...key, event }));
        expect(InvalidEventError.isInstance(error)).toBe(true);
        expect((error as InvalidEventError).path).toContain(
          `event.content.parts[0].functionCall.args${path ? `.${path}` : ''}`,
        );
        expect(await listAll(key)).toEqual([]);
        expect((await appendMany(key, 1))[0]?.seq).toBe(1);
      },
    );

    it('rejects a state that JSON cannot hold in createSession, naming the key', async () => {
      const { service, appName, userId } = context;
      const error = await rejection(
        service.createSession({
          appName,
          userId,
          sessionId: 'bad-state',
          state: { x: Number.NaN },
        }),
      );
      expect(InvalidEventError.isInstance(error)).toBe(true);
      expect((error as InvalidEventError).path).toBe('state.x');
      expect(await service.getSession({ appName, userId, sessionId: 'bad-state' })).toBeUndefined();
    });

    it('replaces top-level state keys, keeps null as a value, never stores temp:', async () => {
      const { service } = context;
      const key = await newSession();
      await service.appendEvent({
        ...key,
        event: make.withState({ nested: { a: 1, b: 2 }, gone: 'x', 'app:shared': { a: 1 } }),
      });
      await service.appendEvent({
        ...key,
        event: make.withState({
          nested: { b: 3 },
          gone: null,
          'user:pref': null,
          'app:shared': { c: 3 },
          'temp:scratch': { big: true },
        }),
      });
      expect((await service.getSession(key))?.state).toStrictEqual({
        nested: { b: 3 },
        gone: null,
        'user:pref': null,
        'app:shared': { c: 3 },
      });
    });

    it('stores NUL in state values, or refuses the event with InvalidEventError', async () => {
      const { service } = context;
      const key = await newSession();
      const outcome = await service
        .appendEvent({ ...key, event: make.withState({ raw: 'a\u0000b' }) })
        .then(
          () => 'stored',
          (error: unknown) => error,
        );
      if (outcome === 'stored') {
        expect((await service.getSession(key))?.state).toStrictEqual({ raw: 'a\u0000b' });
        expect((await listAll(key))[0]?.actions.stateDelta).toStrictEqual({ raw: 'a\u0000b' });
      } else {
        expect(InvalidEventError.isInstance(outcome)).toBe(true);
        expect(await listAll(key)).toEqual([]);
        expect((await service.getSession(key))?.state).toStrictEqual({});
      }
    });
  });
}
