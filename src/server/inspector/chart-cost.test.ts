/**
 * The live chart's cost per call (`GET .../chart` `cost`): each stored call's reported usage at
 * the catalog price of the served agent's model (Gemini 2.5 Flash: $0.30 input, $0.03 cache
 * read, $2.50 output per million tokens).
 */
import { describe, expect, it } from 'vitest';
import { createEvent } from '../../events/event-helpers.js';
import type { ChartResponse } from './api-types.js';
import { APP, inspectorFixture } from './test-helpers/inspector-fixture.js';

const key = { appName: APP, userId: 'alice', sessionId: 'priced' };
const chartPath = `/inspector/api/apps/${APP}/users/alice/sessions/priced/chart`;

async function chartOf(modelId: string | undefined): Promise<ChartResponse> {
  const fixture = inspectorFixture({ ...(modelId !== undefined && { modelId }) });
  const service = fixture.service;
  await service.createSession(key);
  const append = (event: Parameters<typeof createEvent>[0]) =>
    service.appendEvent({ ...key, event: createEvent(event) });
  await append({
    author: 'user',
    invocationId: 'i1',
    content: { role: 'user', parts: [{ text: 'hello' }] },
  });
  await append({
    author: 'assistant',
    invocationId: 'i1',
    content: { role: 'model', parts: [{ text: 'hi' }] },
    usageMetadata: {
      promptTokenCount: 10_000,
      cachedContentTokenCount: 8_000,
      candidatesTokenCount: 100,
    },
  });
  await append({
    author: 'user',
    invocationId: 'i2',
    content: { role: 'user', parts: [{ text: 'again' }] },
  });
  // A call recorded without usage (an import): no estimate, never a guess.
  await append({
    author: 'assistant',
    invocationId: 'i2',
    content: { role: 'model', parts: [{ text: 'hi again' }] },
  });
  const response = await fixture.request(chartPath);
  expect(response.status).toBe(200);
  return (await response.json()) as ChartResponse;
}

describe('GET .../chart cost', () => {
  it('prices each call from its usage at the agent model catalog price', async () => {
    const chart = await chartOf('google:gemini-2.5-flash');
    expect(chart.points).toHaveLength(2);
    expect(chart.cost?.model).toBe('google:gemini-2.5-flash');
    expect(chart.cost?.currency).toBe('USD');
    const [first, second] = chart.cost?.perCallUsd ?? [];
    // 2,000 uncached x 0.30 + 8,000 cached x 0.03 + 100 out x 2.50, per million.
    expect(first).toBeCloseTo((2_000 * 0.3 + 8_000 * 0.03 + 100 * 2.5) / 1e6, 12);
    expect(second).toBeNull();
  });

  it('has no cost when the catalog does not list the model', async () => {
    const chart = await chartOf(undefined);
    expect(chart.points).toHaveLength(2);
    expect(chart.cost).toBeUndefined();
  });
});
