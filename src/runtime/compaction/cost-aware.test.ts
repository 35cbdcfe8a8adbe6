import { describe, expect, it } from 'vitest';
import type { EventsCompactionConfig } from '../../compaction/types.js';
import { createEvent } from '../../events/event-helpers.js';
import type { CompactionEvent, Event } from '../../events/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { ContextGuard } from './context-guard.js';
import { type CostAwareModel, costAwareDecision } from './cost-aware.js';

const sonnet = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const model: CostAwareModel = {
  prices: sonnet,
  summarizerPrices: sonnet,
  cache: 'written',
  ttlSeconds: 300,
};
const config: EventsCompactionConfig = {
  tokenThreshold: 30_000,
  eventRetentionSize: 10,
  retentionTokenBudget: 7_500,
  costAware: { price: 'anthropic:claude-sonnet-4-5' },
};

/** A session of `calls` user/model turns, each event `tokens` tokens, one a second from t=1000. */
function session(calls: number): Event[] {
  const events: Event[] = [];
  for (let call = 0; call < calls; call++) {
    for (const author of ['user', 'agent'] as const) {
      const seq = events.length + 1;
      events.push({
        id: `e${seq}`,
        seq,
        invocationId: `i${call}`,
        author,
        timestamp: 1_000 + seq,
        content: { role: author === 'user' ? 'user' : 'model', parts: [{ text: 'x' }] },
      } as Event);
    }
  }
  return events;
}

// Every event counts 500 tokens, so the tail's sizes are exact.
const estimateEvent = () => 500;

function decide(options: {
  tail: Event[];
  requestTokens: number;
  nowSeconds: number;
  checkpoint?: CompactionEvent;
}) {
  return costAwareDecision({
    model,
    config,
    overheadTokens: 2_000,
    estimateEvent,
    ...options,
  });
}

describe('costAwareDecision', () => {
  const tail = session(20);
  const lastAnswer = tail[tail.length - 1]!.timestamp;

  it('compacts at the threshold and reports the depth it chose', () => {
    const decision = decide({ tail, requestTokens: 30_000, nowSeconds: lastAnswer + 5 });
    expect(decision.compact).toBe(true);
    expect(decision.force).toBe(false);
    expect(decision.note?.reason).toBe('threshold');
    // The configured budget keeps 7,500 tokens (15 events); deeper ones half and a quarter.
    expect([7_500, 3_750, 1_875]).toContain(decision.retention?.tokens);
    expect(decision.note!.expectedUsd).toBeLessThanOrEqual(decision.note!.thresholdOnlyUsd);
  });

  it('waits under the threshold while the cache is warm', () => {
    const decision = decide({ tail, requestTokens: 25_000, nowSeconds: lastAnswer + 5 });
    expect(decision).toEqual({ compact: false, force: false });
  });

  it('compacts early, forced under the threshold, once the cache went cold', () => {
    const decision = decide({ tail, requestTokens: 25_000, nowSeconds: lastAnswer + 600 });
    expect(decision.compact).toBe(true);
    expect(decision.force).toBe(true);
    expect(decision.note?.reason).toBe('cold_cache');
  });

  it("expects a summary on the agent's cached request to cost less than a standalone one", () => {
    const options = { tail, requestTokens: 30_000, nowSeconds: lastAnswer + 5 };
    const standalone = decide(options);
    const reused = costAwareDecision({
      model: { ...model, summaryReusesPrefix: true },
      config,
      overheadTokens: 2_000,
      estimateEvent,
      ...options,
    });
    expect(reused.note!.thresholdOnlyUsd).toBeLessThan(standalone.note!.thresholdOnlyUsd);
  });

  it('never considers compacting a request under half the threshold', () => {
    const decision = decide({ tail, requestTokens: 14_000, nowSeconds: lastAnswer + 3_600 });
    expect(decision).toEqual({ compact: false, force: false });
  });
});

describe('ContextGuard with cost-aware compaction', () => {
  async function guardFor(costModel: boolean) {
    const service = new InMemorySessionService();
    const key = { appName: 'app', userId: 'u', sessionId: 's' };
    await service.createSession(key);
    for (let call = 0; call < 20; call++) {
      for (const author of ['user', 'agent'] as const) {
        await service.appendEvent({
          ...key,
          event: {
            ...createEvent({ author, invocationId: `i${call}` }),
            timestamp: 1_000 + call,
            content: { role: author === 'user' ? 'user' : 'model', parts: [{ text: 'x' }] },
          },
        });
      }
    }
    const requests: unknown[] = [];
    const guard = new ContextGuard({
      sessionService: service,
      config,
      estimateEvent,
      ...(costModel && { costModel: async () => model }),
      compact: async (request) => {
        requests.push(request);
        return {
          sessionId: 's',
          trigger: request.trigger,
          outcome: 'skipped',
          tokensBefore: 0,
          durationMs: 0,
        };
      },
    });
    const prepare = (nowSeconds: number) =>
      guard.prepare({
        key,
        agentName: 'agent',
        model: { modelId: 'm', generate: async () => ({ content: { role: 'model', parts: [] } }) },
        overhead: { tokens: 2_000, bytes: 0 },
        invocationId: 'next',
        nowSeconds,
      });
    return { requests, prepare };
  }

  it('compacts under the threshold on a cold cache, with the choice on the request', async () => {
    // 40 events of 500 tokens + 2,000 of overhead: 22,000, under the 30,000 threshold.
    const { requests, prepare } = await guardFor(true);
    await prepare(1_020);
    expect(requests).toEqual([]);
    await prepare(1_019 + 600);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      trigger: 'token_threshold',
      force: true,
      costChoice: { reason: 'cold_cache' },
    });
  });

  it('without it, nothing under the threshold compacts', async () => {
    const { requests, prepare } = await guardFor(false);
    await prepare(1_019 + 600);
    expect(requests).toEqual([]);
  });
});
