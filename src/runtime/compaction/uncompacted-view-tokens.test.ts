/**
 * `UncompactedViewTokens` is an incremental count of what `assembleView` over the whole history
 * would hold: checked against the real assembly after every append, on hand-picked histories
 * (a call answered late, one never answered, an orphan response, a reused call id) and on random
 * ones with every kind of part, partial events and contents that may merge.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { estimateContentListTokens } from '../../compaction/token-estimate.js';
import { assembleView } from '../../compaction/view.js';
import type { Content, Event, Part, Role } from '../../events/types.js';
import { UncompactedViewTokens } from './uncompacted-view-tokens.js';

const OVERHEAD = 17;

/** What replay reported before: the whole history assembled, then counted. */
function assembled(events: Event[]): number {
  return OVERHEAD + estimateContentListTokens(assembleView({ tail: events }).contents);
}

function event(seq: number, author: string, content?: Content, partial?: boolean): Event {
  return {
    id: `e${seq}`,
    invocationId: 'inv',
    author,
    timestamp: seq,
    seq,
    actions: {},
    ...(content ? { content } : {}),
    ...(partial ? { partial } : {}),
  };
}

const call = (id: string, name = 'tool'): Part => ({ functionCall: { id, name, args: { id } } });
const response = (id: string, name = 'tool'): Part => ({
  functionResponse: { id, name, response: { output: `result of ${id}` } },
});
const text = (value: string): Part => ({ text: value });

/** The counter's figure after each event, beside the assembled one. */
function both(events: Event[]): Array<{ counted: number; assembled: number }> {
  const counter = new UncompactedViewTokens();
  return events.map((next, index) => {
    counter.append(next);
    return { counted: counter.total(OVERHEAD), assembled: assembled(events.slice(0, index + 1)) };
  });
}

function expectSame(events: Event[]): void {
  for (const step of both(events)) expect(step.counted).toBe(step.assembled);
}

describe('UncompactedViewTokens', () => {
  it('counts a plain conversation as the assembled view does', () => {
    const events = [
      event(1, 'user', { role: 'user', parts: [text('Why is checkout slow?')] }),
      event(2, 'agent', { role: 'model', parts: [text('Looking.'), call('c1')] }),
      event(3, 'agent', { role: 'user', parts: [response('c1')] }),
      event(4, 'agent', { role: 'model', parts: [text('A lock on the orders table.')] }),
    ];
    const steps = both(events);
    expect(steps.map((step) => step.counted)).toEqual(steps.map((step) => step.assembled));
    // The figure grows with the history: each step adds its content.
    expect(steps[3]!.counted).toBeGreaterThan(steps[0]!.counted);
  });

  it('answers a call synthetically until its result arrives, then drops the synthetic answer', () => {
    expectSame([
      event(1, 'user', { role: 'user', parts: [text('go')] }),
      event(2, 'agent', { role: 'model', parts: [call('late')] }),
      // A user message ends the turn: the call is no longer pending and gets an error answer.
      event(3, 'user', { role: 'user', parts: [text('still there?')] }),
      event(4, 'agent', { role: 'model', parts: [text('yes')] }),
      event(5, 'agent', { role: 'user', parts: [response('late')] }),
    ]);
  });

  it('leaves the pending model turn alone and answers a call that never returns', () => {
    expectSame([
      event(1, 'user', { role: 'user', parts: [text('go')] }),
      event(2, 'agent', { role: 'model', parts: [call('a'), call('b')] }),
      event(3, 'agent', { role: 'user', parts: [response('a')] }),
      event(4, 'agent', { role: 'model', parts: [call('c')] }),
      event(5, 'user', { role: 'user', parts: [text('next')] }),
    ]);
  });

  it('drops an orphan response and a response in the same event as its call', () => {
    expectSame([
      event(1, 'agent', { role: 'user', parts: [response('nobody')] }),
      event(2, 'agent', { role: 'model', parts: [call('x'), response('x')] }),
      event(3, 'user', { role: 'user', parts: [text('and then')] }),
    ]);
  });

  it('treats a reused call id as the assembled view does', () => {
    expectSame([
      event(1, 'agent', { role: 'model', parts: [call('same')] }),
      event(2, 'agent', { role: 'user', parts: [response('same')] }),
      event(3, 'agent', { role: 'model', parts: [call('same')] }),
      event(4, 'user', { role: 'user', parts: [text('moving on')] }),
      event(5, 'agent', { role: 'model', parts: [call('same')] }),
    ]);
  });

  it('skips partial events, events without content and empty contents', () => {
    expectSame([
      event(1, 'agent', { role: 'model', parts: [text('partial thought')] }, true),
      event(2, 'agent'),
      event(3, 'agent', { role: 'model', parts: [] }),
      event(4, 'user', { role: 'user', parts: [text('hi')] }),
    ]);
  });

  it('equals the assembled view after every append of a random history', () => {
    const ids = ['a', 'b', 'c', 'd'];
    const part: fc.Arbitrary<Part> = fc.oneof(
      fc.string({ maxLength: 40 }).map((value) => text(value)),
      fc.constantFrom(...ids).map((id) => call(id, `tool_${id}`)),
      fc.constantFrom(...ids).map((id) => response(id, `tool_${id}`)),
    );
    const step = fc.record({
      role: fc.constantFrom<Role>('user', 'model'),
      author: fc.constantFrom('user', 'agent'),
      parts: fc.array(part, { maxLength: 4 }),
      partial: fc.integer({ min: 0, max: 4 }).map((value) => value === 0),
      hasContent: fc.integer({ min: 0, max: 9 }).map((value) => value > 0),
    });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 25 }), (steps) => {
        const events = steps.map((entry, index) =>
          event(
            index + 1,
            entry.author,
            entry.hasContent ? { role: entry.role, parts: entry.parts } : undefined,
            entry.partial,
          ),
        );
        for (const { counted, assembled: expected } of both(events)) {
          if (counted !== expected) return false;
        }
        return true;
      }),
      { numRuns: 500 },
    );
  });
});
