/**
 * `ViewExtender`: every view it returns equals `assembleView`'s for the same checkpoint and tail,
 * whatever was appended (plain turns, calls pending then answered, a dangling call, an elision
 * rule, a compaction, a partial event, another scope's key); plain appends extend the previous
 * view (its contents objects are reused) instead of re-assembling it. Its running token total
 * equals `estimateContentListTokens` of the view at every step, extended or re-assembled.
 */
import { expect, it } from 'vitest';
import { estimateContentListTokens } from '../../compaction/token-estimate.js';
import { assembleView } from '../../compaction/view.js';
import type { CompactionEvent, Content, Event, Part } from '../../events/types.js';
import { ViewExtender } from './view-extender.js';

let nextSeq = 1;

function event(
  role: Content['role'] | undefined,
  parts: Part[],
  extra: Partial<Event> = {},
): Event {
  const seq = nextSeq++;
  return {
    id: `event-${seq}`,
    invocationId: `turn-${seq}`,
    author: role === 'model' ? 'agent' : 'user',
    timestamp: seq,
    seq,
    actions: {},
    ...(role && { content: { role, parts } }),
    ...extra,
  } as Event;
}

const say = (role: Content['role'], text: string) => event(role, [{ text }]);
const call = (id: string) =>
  event('model', [{ functionCall: { id, name: 'fetch', args: { id } } }]);
const answer = (id: string) =>
  event('user', [
    { functionResponse: { id, name: 'fetch', response: { body: `${id} `.repeat(50) } } },
  ]);

function compaction(endSeq: number): CompactionEvent {
  return event(undefined, [], {
    actions: {
      compaction: {
        startSeq: 1,
        endSeq,
        startTimestamp: 1,
        endTimestamp: 2,
        compactedContent: { role: 'model', parts: [{ text: 'summary' }] },
        trigger: 'token_threshold',
        tokensBefore: 1,
        tokensAfter: 1,
        summarizer: 'test',
      },
    },
  }) as CompactionEvent;
}

it('equals the full assembly after every kind of append, and extends on plain ones', () => {
  const extender = new ViewExtender();
  const stored: Event[] = [];
  let checkpoint: CompactionEvent | undefined;
  let previous: ReturnType<typeof assembleView> | undefined;
  const extendedSteps: string[] = [];
  const step = (name: string, ...appended: Event[]) => {
    stored.push(...appended);
    const endSeq = checkpoint?.actions.compaction.endSeq ?? 0;
    // A store's tail: every event after the checkpoint's range (the checkpoint itself included).
    const tail = stored.filter((candidate) => candidate.seq > endSeq);
    const view = extender.assemble({ viewKey: 'session', checkpoint, tail });
    expect(view, name).toEqual(assembleView({ checkpoint, tail }));
    // Asked every other step: a total computed once is kept up to date by the extensions after.
    if (nextSeq % 2 === 0 || name.startsWith('plain')) {
      expect(extender.contentTokens({ viewKey: 'session', contents: view.contents }), name).toBe(
        estimateContentListTokens(view.contents),
      );
    }
    if (previous && previous.contents.length > 0 && view.contents[0] === previous.contents[0]) {
      extendedSteps.push(name);
    }
    previous = view;
  };
  step('first', say('user', 'hello'), say('model', 'hi'));
  step('plain turn', say('user', 'next'), say('model', 'ok'));
  step('user only', say('user', 'and'));
  step('same role merges', say('user', 'more'));
  step('answer', say('model', 'sure'));
  step('pending call', say('user', 'fetch a'), call('a'));
  step('user message makes it dangling', say('user', 'never mind'));
  step('model after dangling', say('model', 'fine'));
  step('call answered', say('user', 'fetch b'), call('b'), answer('b'), say('model', 'done b'));
  step('plain after calls', say('user', 'next'), say('model', 'ok'));
  step('partial', { ...say('model', 'typing'), partial: true });
  step('after partial', say('user', 'next'));
  const ruleSeq = nextSeq;
  step(
    'elision rule',
    event(undefined, [], {
      actions: {
        elision: {
          throughSeq: ruleSeq - 1,
          minOutputBytes: 10,
          trigger: 'token_threshold',
          tokensBefore: 1,
          tokensAfter: 1,
        },
      },
    }),
  );
  step('plain under a rule', say('model', 'ok'), say('user', 'next'));
  checkpoint = compaction(nextSeq - 1);
  step('compaction', checkpoint);
  step('plain after compaction', say('model', 'resumed'));
  step('plain again', say('user', 'next'), say('model', 'ok'));
  step('state only', event(undefined, [], { actions: { stateDelta: { mood: 'fine' } } }));
  step('plain after state', say('user', 'next'));
  expect(extendedSteps).toEqual([
    'plain turn',
    'user only',
    'same role merges',
    'answer',
    // Not 'model after dangling' nor 'plain after calls': the view answers the dangling call
    // with a warning until a compaction covers it, and a view with warnings is re-assembled.
    // Not 'plain under a rule': a view under an elision rule is re-assembled.
    'plain after compaction',
    'plain again',
    'state only',
    'plain after state',
  ]);
});

it('never extends across keys, or from a tail that is not the previous one plus appends', () => {
  const extender = new ViewExtender();
  const first = [say('user', 'a'), say('model', 'b')];
  const view = extender.assemble({ viewKey: 'one', tail: first });
  const other = [say('user', 'c'), say('model', 'd'), say('user', 'e')];
  // Another key with a longer tail: assembled whole, not extended from 'one'.
  expect(extender.assemble({ viewKey: 'two', tail: other })).toEqual(assembleView({ tail: other }));
  // The same key, a different first event (a recreated session): assembled whole.
  const recreated = [{ ...first[0]!, id: 'other-id' }, first[1]!, say('user', 'f')];
  const again = extender.assemble({ viewKey: 'one', tail: recreated });
  expect(again).toEqual(assembleView({ tail: recreated }));
  expect(again.contents[0]).not.toBe(view.contents[0]);
  // A shorter tail (another scope under the same key would look like this): assembled whole.
  expect(extender.assemble({ viewKey: 'one', tail: first.slice(0, 1) })).toEqual(
    assembleView({ tail: first.slice(0, 1) }),
  );
});

it('keeps its own copies: a caller changing the returned arrays does not change the next view', () => {
  const extender = new ViewExtender();
  const tail = [say('user', 'a'), say('model', 'b')];
  const view = extender.assemble({ viewKey: 'session', tail });
  view.contents.push({ role: 'user', parts: [{ text: 'injected' }] });
  view.events.pop();
  const longer = [...tail, say('user', 'c')];
  const extended = extender.assemble({ viewKey: 'session', tail: longer });
  expect(extended).toEqual(assembleView({ tail: longer }));
  // The extended view's arrays are the caller's own too (the extender extends private ones).
  extended.contents.pop();
  extended.events.pop();
  const longest = [...longer, say('model', 'd')];
  expect(extender.assemble({ viewKey: 'session', tail: longest })).toEqual(
    assembleView({ tail: longest }),
  );
});

it('keeps the token total exact across extensions, merges, caller changes and a rebuild', () => {
  const extender = new ViewExtender();
  const tail = [say('user', 'a'), say('model', 'b')];
  const total = (viewKey: string, contents: readonly Content[]) =>
    extender.contentTokens({ viewKey, contents });
  let view = extender.assemble({ viewKey: 'session', tail });
  expect(total('session', view.contents)).toBe(estimateContentListTokens(view.contents));
  for (let index = 0; index < 20; index++) {
    // Same-role appends merge into the last content, which is re-estimated whole.
    tail.push(say(index % 3 === 0 ? 'model' : 'user', `turn ${index} `.repeat(index + 1)));
    view = extender.assemble({ viewKey: 'session', tail });
    const expected = estimateContentListTokens(view.contents);
    // The caller changing its copy after the assembly does not change the view's total.
    view.contents.push({ role: 'user', parts: [{ text: 'injected '.repeat(40) }] });
    expect(total('session', view.contents.slice(0, -1))).toBe(expected);
    expect(total('session', view.contents)).toBe(expected);
  }
  // A list that is not the one just returned (another key's, a copy): summed whole.
  const copy = view.contents.slice();
  expect(total('session', copy)).toBe(estimateContentListTokens(copy));
  expect(total('other', view.contents)).toBe(estimateContentListTokens(view.contents));
  // A branch switch or a recreated session under the key falls back to a rebuild: still exact.
  const branch = [say('user', 'x'), say('model', 'y '.repeat(30))];
  view = extender.assemble({ viewKey: 'session', tail: branch });
  expect(view).toEqual(assembleView({ tail: branch }));
  expect(total('session', view.contents)).toBe(estimateContentListTokens(view.contents));
  branch.push(call('c'));
  view = extender.assemble({ viewKey: 'session', tail: branch });
  expect(total('session', view.contents)).toBe(estimateContentListTokens(view.contents));
  branch.push(answer('c'), say('model', 'done'));
  view = extender.assemble({ viewKey: 'session', tail: branch });
  expect(view).toEqual(assembleView({ tail: branch }));
  expect(total('session', view.contents)).toBe(estimateContentListTokens(view.contents));
});
