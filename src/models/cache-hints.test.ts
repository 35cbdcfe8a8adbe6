/**
 * Cache hints on the wire (docs/cost.md#cache-hints): the real AI SDK providers against recorded
 * fixtures, the request bodies they send read back.
 */
import { describe, expect, it } from 'vitest';
import { SUMMARY_PREFIX } from '../compaction/view.js';
import { resolveModel } from './resolve-model.js';
import { fixtureFetch, loadFixture } from './test-helpers/fixture-fetch.js';
import { testEnv, travelRequest } from './test-helpers/travel-request.js';

type Block = { type: string; text?: string; cache_control?: unknown };
type Body = {
  system?: Block[];
  messages: { role: string; content: Block[] }[];
  prompt_cache_key?: string;
};

async function sent(
  modelId: string,
  fixture: [string, string],
  cacheHints?: boolean,
  cacheKey: string | undefined = 'session-42',
) {
  const { fetch, requests } = fixtureFetch(loadFixture(...fixture));
  const model = await resolveModel({
    modelId,
    env: testEnv,
    fetch,
    ...(cacheHints === undefined ? {} : { cacheHints }),
  });
  const request = travelRequest();
  // A compacted view: the summary is the first user content.
  request.contents.unshift({ role: 'user', parts: [{ text: `${SUMMARY_PREFIX}Paris trip.` }] });
  await model.generate({ ...request, ...(cacheKey === undefined ? {} : { cacheKey }) });
  return requests[0]?.body as Body;
}

const marked = (blocks: Block[] | undefined) =>
  (blocks ?? []).filter((block) => block.cache_control !== undefined).length;

describe('Anthropic breakpoints', () => {
  it('marks the system prompt, the summary and the last message, and nothing else', async () => {
    const body = await sent('anthropic:claude-sonnet-4-5', ['anthropic', 'tool-call']);
    expect(body.system?.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
    const summary = body.messages[0]?.content.find((block) =>
      block.text?.startsWith(SUMMARY_PREFIX),
    );
    expect(summary?.cache_control).toEqual({ type: 'ephemeral' });
    expect(body.messages.at(-1)?.content.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
    const total =
      marked(body.system) +
      body.messages.reduce((sum, message) => sum + marked(message.content), 0);
    expect(total).toBe(3);
    // No OpenAI option leaks into another provider's body.
    expect(body.prompt_cache_key).toBeUndefined();
  });

  it('the off switch sends no breakpoint', async () => {
    const body = await sent('anthropic:claude-sonnet-4-5', ['anthropic', 'tool-call'], false);
    const total =
      marked(body.system) +
      body.messages.reduce((sum, message) => sum + marked(message.content), 0);
    expect(total).toBe(0);
  });
});

describe('OpenAI prompt_cache_key', () => {
  it('sends the request cache key as prompt_cache_key', async () => {
    const body = await sent('openai:gpt-4.1-mini', ['openai', 'tool-call']);
    expect(body.prompt_cache_key).toBe('session-42');
  });

  it('the off switch sends none', async () => {
    const body = await sent('openai:gpt-4.1-mini', ['openai', 'tool-call'], false);
    expect(body.prompt_cache_key).toBeUndefined();
  });
});
