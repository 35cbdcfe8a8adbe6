import { describe, expect, it } from 'vitest';
import type { Event, NewEvent } from '../events/types.js';
import {
  compactionEvent,
  functionCallEvent,
  functionResponseEvent,
  modelTextEvent,
  userTextEvent,
} from '../testing/event-builders.js';
import {
  eventsOnBranch,
  isBranchResult,
  isOnBranchPath,
  isVisibleOnBranch,
  scopeView,
} from './branch-view.js';

function stored(events: NewEvent[]): Event[] {
  return events.map((event, index) => ({ ...event, seq: index + 1 }));
}

/** A branch summary as the Compactor stores it. */
function branchSummary(options: {
  branch: string;
  startSeq: number;
  endSeq: number;
  text: string;
}) {
  const { actions, ...event } = compactionEvent(options);
  return { ...event, branch: options.branch, actions: { branchCompaction: actions.compaction } };
}

const texts = (events: Event[]) => events.map((event) => event.content?.parts[0]?.text ?? '-');

describe('branch paths (ADK: the invocation branch equals the event branch or starts with it and a dot)', () => {
  it("treats no branch and ADK's empty branch as the trunk", () => {
    expect(isOnBranchPath(undefined, 'a.b')).toBe(true);
    expect(isOnBranchPath('a.b', 'a.b')).toBe(true);
    expect(isOnBranchPath('a', 'a.b')).toBe(true);
    expect(isOnBranchPath('a.b', 'a.bc')).toBe(false);
    expect(isOnBranchPath('a.b', undefined)).toBe(false);
    const trunk = stored([userTextEvent({ text: 'q', branch: '' })])[0]!;
    expect(isVisibleOnBranch(trunk, { branch: 'sweep.x' })).toBe(true);
  });

  it('a result is a model answer with text and no call', () => {
    const [answer, call, response] = stored([
      modelTextEvent({ text: 'done', author: 'x' }),
      functionCallEvent({ calls: ['c1'], author: 'x' }),
      functionResponseEvent({ responses: ['c1'], author: 'x' }),
    ]);
    expect(isBranchResult(answer!)).toBe(true);
    expect(isBranchResult(call!)).toBe(false);
    expect(isBranchResult(response!)).toBe(false);
  });
});

describe('scopeView', () => {
  const events = stored([
    userTextEvent({ text: 'triage' }), // 1 trunk
    functionCallEvent({ calls: ['a1'], author: 'a', branch: 'sweep.a' }), // 2
    functionCallEvent({ calls: ['b1'], author: 'b', branch: 'sweep.b' }), // 3
    functionResponseEvent({ responses: ['a1'], author: 'a', branch: 'sweep.a' }), // 4
    functionResponseEvent({ responses: ['b1'], author: 'b', branch: 'sweep.b' }), // 5
    branchSummary({ branch: 'sweep.a', startSeq: 1, endSeq: 4, text: 'A summary' }), // 6
    modelTextEvent({ text: 'A answer', author: 'a', branch: 'sweep.a' }), // 7
    modelTextEvent({ text: 'B answer', author: 'b', branch: 'sweep.b' }), // 8
    modelTextEvent({ text: 'deep answer', author: 'c', branch: 'sweep.a.inner.c' }), // 9
  ]);

  it("a branch sees its own and the trunk's events, its summary, never a sibling's", () => {
    const a = scopeView({ tail: events }, { branch: 'sweep.a' });
    expect(a.checkpoint?.seq).toBe(6);
    expect(a.checkpoint?.actions.compaction.compactedContent.parts[0]?.text).toBe('A summary');
    // After the summary's range: its answer, and its descendant's result.
    expect(a.tail.map((event) => event.seq)).toEqual([7, 9]);
    const b = scopeView({ tail: events }, { branch: 'sweep.b' });
    expect(b.checkpoint).toBeUndefined();
    expect(b.tail.map((event) => event.seq)).toEqual([1, 3, 5, 8]);
  });

  it("the trunk sees every branch's results only, and no branch summary", () => {
    const trunk = scopeView({ tail: events }, {});
    expect(trunk.checkpoint).toBeUndefined();
    expect(texts(trunk.tail)).toEqual(['triage', 'A answer', 'B answer', 'deep answer']);
  });

  it('a trunk summary covering more than a branch summary wins on the branch too', () => {
    const trunkCheckpoint = {
      ...compactionEvent({ startSeq: 1, endSeq: 7, text: 'trunk' }),
      seq: 10,
    } as ReturnType<typeof scopeView>['checkpoint'] & Event;
    const a = scopeView(
      { checkpoint: trunkCheckpoint, tail: events.slice(7) },
      { branch: 'sweep.a' },
    );
    expect(a.checkpoint?.seq).toBe(10);
    expect(a.tail.map((event) => event.seq)).toEqual([9]);
  });

  it("eventsOnBranch keeps a branch's summaries and the trunk's for replay", () => {
    expect(eventsOnBranch(events, { branch: 'sweep.b' }).map((event) => event.seq)).toEqual([
      1, 3, 5, 8,
    ]);
    expect(eventsOnBranch(events, { branch: 'sweep.a' }).map((event) => event.seq)).toEqual([
      1, 2, 4, 6, 7, 9,
    ]);
  });
});
