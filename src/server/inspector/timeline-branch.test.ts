import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../events/types.js';
import {
  compactionEvent,
  functionCallEvent,
  modelTextEvent,
  userTextEvent,
} from '../../testing/event-builders.js';
import type { TimelineResponse } from './api-types.js';
import { APP, inspectorFixture } from './test-helpers/inspector-fixture.js';

const key = { appName: APP, userId: 'alice', sessionId: 'sweep' };
const timeline = `/inspector/api/apps/${APP}/users/alice/sessions/sweep/timeline`;

describe('GET .../timeline?branch=', () => {
  it('shows what one branch sees, its summaries as compactions, and labels each branch', async () => {
    const fixture = inspectorFixture();
    const service = fixture.service;
    await service.createSession(key);
    const append = (event: NewEvent) => service.appendEvent({ ...key, event });
    await append(userTextEvent({ text: 'triage' })); // 1
    await append(functionCallEvent({ calls: ['a1'], author: 'a', branch: 'sweep.a' })); // 2
    await append(functionCallEvent({ calls: ['b1'], author: 'b', branch: 'sweep.b' })); // 3
    const { actions, ...summary } = compactionEvent({ startSeq: 1, endSeq: 2, text: 'a so far' });
    await append({
      ...summary,
      branch: 'sweep.a',
      actions: { branchCompaction: actions.compaction },
    }); // 4
    await append(modelTextEvent({ text: 'A found it', author: 'a', branch: 'sweep.a' })); // 5
    const read = async (query: string) => {
      const response = await fixture.request(`${timeline}${query}`);
      expect(response.status).toBe(200);
      return (await response.json()) as TimelineResponse;
    };
    const all = await read('');
    expect(all.events.map((event) => event.branch)).toEqual([
      undefined,
      'sweep.a',
      'sweep.b',
      'sweep.a',
      'sweep.a',
    ]);
    expect(all.events[3]).toMatchObject({ kind: 'compaction', preview: 'a so far' });
    const a = await read('?branch=sweep.a');
    expect(a.events.map((event) => event.seq)).toEqual([1, 2, 4, 5]);
    const trunk = await read('?branch=');
    expect(trunk.events.map((event) => event.seq)).toEqual([1, 5]);
  });
});
