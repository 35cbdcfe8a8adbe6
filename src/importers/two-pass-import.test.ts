import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../events/types.js';
import { StatsCounter } from './streamed-import.js';
import type { TimestampPlan } from './timestamp-plan.js';
import { finishFirstPass, secondPassEvents } from './two-pass-import.js';

function event(id: string): NewEvent {
  return { id, invocationId: 'i', author: 'user', timestamp: 1, actions: {} };
}

describe('secondPassEvents', () => {
  it('yields the events a record made before the next record is read, the rest at finish', async () => {
    const log: string[] = [];
    async function* records() {
      for (const record of ['a', 'b', 'c']) {
        log.push(`read ${record}`);
        yield record;
      }
    }
    const events = secondPassEvents({
      records: records(),
      start: (sink) => ({
        // `b` makes nothing yet: its event comes with `c`'s; `finish` makes the last one.
        add: (record: string) => {
          if (record === 'a') sink(event('a'));
          if (record === 'c') for (const id of ['b', 'c']) sink(event(id));
        },
        finish: () => sink(event('end')),
      }),
    });
    for await (const made of events) log.push(`event ${made.id}`);
    expect(log).toEqual([
      'read a',
      'event a',
      'read b',
      'read c',
      'event b',
      'event c',
      'event end',
    ]);
  });
});

describe('finishFirstPass', () => {
  it('puts the reading repairs first and hands the plan and the caller’s signal on', async () => {
    const plan = {} as TimestampPlan;
    const importSignal = new AbortController().signal;
    const callerSignal = new AbortController().signal;
    const passes: Array<{ plan: TimestampPlan; signal?: AbortSignal }> = [];
    const counter = new StatsCounter(true);
    counter.add(event('a'));
    const streamed = finishFirstPass({
      reader: {
        finish: () => ({
          meta: { format: 'claude-code' },
          repairs: [{ kind: 'call_id_assigned', message: 'second' }],
        }),
        timestampPlan: () => plan,
      },
      repairs: [{ kind: 'invalid_utf8_replaced', message: 'first' }],
      counter,
      signal: importSignal,
      secondPass: async function* (pass) {
        passes.push(pass);
        yield event('x');
      },
    });
    expect(streamed.repairs.map((repair) => repair.message)).toEqual(['first', 'second']);
    expect(streamed).toMatchObject({ source: 'file', stats: { events: 1 } });
    for await (const _ of streamed.events()) break;
    for await (const _ of streamed.events({ signal: callerSignal })) break;
    expect(passes[0]?.plan).toBe(plan);
    expect(passes.map((pass) => pass.signal)).toEqual([importSignal, callerSignal]);
  });
});
