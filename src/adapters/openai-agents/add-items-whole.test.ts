import type { AgentInputItem } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { OrreryAgentsSession } from './orrery-agents-session.js';

/** A store whose `failOn`-th append (1-based, counted from `arm()`) fails. */
class FailingStore extends InMemorySessionService {
  private count = 0;
  private failOn = 0;
  arm(failOn: number): void {
    this.count = 0;
    this.failOn = failOn;
  }
  override appendEvent(options: Parameters<InMemorySessionService['appendEvent']>[0]) {
    this.count++;
    if (this.count === this.failOn) return Promise.reject(new Error('disk full'));
    return super.appendEvent(options);
  }
}

const turn: AgentInputItem[] = [
  { role: 'user', content: 'Where is order 7?' },
  {
    type: 'function_call',
    callId: 'call-7',
    name: 'lookup',
    arguments: '{"order":7}',
    status: 'completed',
  },
  {
    type: 'function_call_result',
    callId: 'call-7',
    name: 'lookup',
    status: 'completed',
    output: { type: 'text', text: 'shipped' },
  },
  {
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: 'Order 7 shipped.' }],
  },
] as AgentInputItem[];

describe('OrreryAgentsSession.addItems is all or nothing', () => {
  it('the store fails on the third of four items: none is shown, the error is thrown', async () => {
    const sessionService = new FailingStore();
    const session = new OrreryAgentsSession({ sessionService, sessionId: 's', compaction: null });
    await session.addItems([{ role: 'user', content: 'Hello' }]);
    sessionService.arm(3);
    await expect(session.addItems(turn)).rejects.toThrow('disk full');
    // Two events landed in the store (append-only), but the call without its output is not
    // part of the session: a reader (this object or another) sees the session as before.
    expect(await session.getItems()).toEqual([{ role: 'user', content: 'Hello' }]);
    const other = new OrreryAgentsSession({ sessionService, sessionId: 's', compaction: null });
    expect(await other.getItems()).toEqual([{ role: 'user', content: 'Hello' }]);
    // The Runner retries the turn: now it is stored whole, once.
    await session.addItems(turn);
    expect(await session.getItems()).toEqual([{ role: 'user', content: 'Hello' }, ...turn]);
  });

  it('a compaction never summarizes the half-stored items', async () => {
    const sessionService = new FailingStore();
    const session = new OrreryAgentsSession({
      sessionService,
      sessionId: 's',
      compaction: { tokenThreshold: 1, eventRetentionSize: 0 },
      summarizer: new DigestSummarizer(),
      logger: false,
    });
    sessionService.arm(3);
    await expect(session.addItems(turn)).rejects.toThrow('disk full');
    await session.addItems([{ role: 'user', content: 'Anything else?' }]);
    await session.runCompaction();
    const items = await session.getItems();
    expect(JSON.stringify(items)).not.toContain('order');
    expect(JSON.stringify(items)).not.toContain('call-7');
  });

  it('a pop after a failed batch pops the last item shown', async () => {
    const sessionService = new FailingStore();
    const session = new OrreryAgentsSession({ sessionService, sessionId: 's', compaction: null });
    await session.addItems([{ role: 'user', content: 'Hello' }]);
    sessionService.arm(4);
    await expect(session.addItems(turn)).rejects.toThrow('disk full');
    expect(await session.popItem()).toEqual({ role: 'user', content: 'Hello' });
    expect(await session.getItems()).toEqual([]);
  });
});
