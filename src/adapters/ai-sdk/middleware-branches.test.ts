import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import {
  generateText,
  type ModelMessage,
  stepCountIs,
  ToolLoopAgent,
  tool,
  wrapLanguageModel,
} from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ContextOverflowError } from '../../runtime/errors.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { AI_SDK_METADATA_KEY } from '../shared/conversation-log.js';
import { compactionMiddleware } from './middleware.js';
import { orphans, startsWithSummary } from './test-helpers/prompt-checks.js';
import {
  overflowError,
  promptTokens,
  scriptedProvider,
  usage,
} from './test-helpers/scripted-provider.js';

const key = { appName: 'ai-sdk', userId: 'anonymous' };

/** A model that answers `answer N` (N counts its calls), keeping every prompt. */
function echoModel() {
  const prompts: LanguageModelV3Prompt[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async (params) => {
      prompts.push(structuredClone(params.prompt));
      return {
        content: [{ type: 'text', text: `answer ${prompts.length} ${'words '.repeat(50)}` }],
        finishReason: { unified: 'stop', raw: undefined },
        usage: usage(promptTokens(params.prompt)),
        warnings: [],
      };
    },
  });
  return { model, prompts };
}

function promptText(prompt: LanguageModelV3Prompt): string {
  return JSON.stringify(prompt);
}

function setup(threshold = 100_000) {
  const sessionService = new InMemorySessionService();
  const echo = echoModel();
  const model = wrapLanguageModel({
    model: echo.model,
    middleware: compactionMiddleware({
      sessionService,
      compaction: { tokenThreshold: threshold, eventRetentionSize: 2 },
      summarizer: new DigestSummarizer(),
      logger: false,
    }),
  });
  return { sessionService, echo, model };
}

/** A chat of `turns` questions, each answered; returns the messages the app keeps. */
async function chat(model: ReturnType<typeof setup>['model'], id: string, turns: number) {
  const messages: ModelMessage[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    messages.push({ role: 'user', content: `question ${turn}` });
    const result = await generateText({
      model,
      messages,
      providerOptions: { orrery: { conversationId: id } },
    });
    messages.push(...result.response.messages);
  }
  return messages;
}

async function events(sessionService: InMemorySessionService, sessionId: string) {
  return (await sessionService.listEvents({ ...key, sessionId })).events;
}

describe('compactionMiddleware: regenerate and edit', () => {
  it('logs only what is new on the next turn', async () => {
    const { sessionService, model } = setup();
    await chat(model, 'c', 3);
    const stored = await events(sessionService, 'c');
    expect(stored.map((event) => event.customMetadata?.[AI_SDK_METADATA_KEY])).toEqual(
      [0, 1, 2, 3, 4, 5].map((index) => ({ index, chain: expect.any(String) })),
    );
  });

  it('regenerate: records a branch, the model never sees the old answer, the log keeps it', async () => {
    const { sessionService, echo, model } = setup();
    const messages = await chat(model, 'r', 2);
    const oldAnswer = messages.at(-1)!;
    // Regenerate: the same prompt again, without the last answer.
    const again = await generateText({
      model,
      messages: messages.slice(0, -1),
      providerOptions: { orrery: { conversationId: 'r' } },
    });
    expect(promptText(echo.prompts.at(-1)!)).not.toContain('answer 2 ');
    expect(again.text).toMatch(/^answer 3 /);
    const stored = await events(sessionService, 'r');
    const rewinds = stored.filter((event) => event.actions.rewindBeforeInvocationId);
    expect(rewinds).toHaveLength(1);
    // The annulled invocation is the old question 2 and its answer; both stay stored.
    expect(rewinds[0]!.actions.rewindBeforeInvocationId).toBe(stored[2]!.invocationId);
    expect(stored.map((event) => event.content?.parts[0]?.text?.slice(0, 10))).toEqual([
      'question 1',
      'answer 1 w',
      'question 2',
      'answer 2 w',
      undefined,
      'question 2',
      'answer 3 w',
    ]);
    expect(oldAnswer.role).toBe('assistant');
    // The next turn continues from the new answer and appends only the new messages.
    const next = [
      ...messages.slice(0, -1),
      ...again.response.messages,
      { role: 'user' as const, content: 'question 3' },
    ];
    await generateText({
      model,
      messages: next,
      providerOptions: { orrery: { conversationId: 'r' } },
    });
    expect(await events(sessionService, 'r')).toHaveLength(9);
    expect(promptText(echo.prompts.at(-1)!)).not.toContain('answer 2 ');
  });

  it('edit of an earlier message after compaction: the view leaves the old branch out', async () => {
    const { sessionService, echo, model } = setup(400);
    const messages = await chat(model, 'e', 6);
    expect(echo.prompts.some(startsWithSummary)).toBe(true);
    // The user edits question 5 and resends from there.
    const edited: ModelMessage[] = [
      ...messages.slice(0, 8),
      { role: 'user', content: 'question 5, edited' },
    ];
    await generateText({
      model,
      messages: edited,
      providerOptions: { orrery: { conversationId: 'e' } },
    });
    const sent = promptText(echo.prompts.at(-1)!);
    expect(sent).toContain('question 5, edited');
    expect(sent).not.toContain('answer 5 ');
    expect(sent).not.toContain('question 6');
    const stored = await events(sessionService, 'e');
    // Nothing stored was rewritten: the old question 5 .. answer 6 are all still there.
    const texts = stored.map((event) => event.content?.parts[0]?.text ?? '');
    for (const text of [
      'question 5',
      'answer 5 ',
      'question 6',
      'answer 6 ',
      'question 5, edited',
    ]) {
      expect(texts.some((stored) => stored.startsWith(text))).toBe(true);
    }
    expect(stored.filter((event) => event.actions.rewindBeforeInvocationId)).toHaveLength(1);
  });
});

describe('compactionMiddleware: context overflow', () => {
  it('compacts with a smaller tail and retries once after the provider refuses the size', async () => {
    const sessionService = new InMemorySessionService();
    const provider = scriptedProvider({ calls: 8 });
    provider.failOn.set(6, overflowError);
    const reports: string[] = [];
    const model = wrapLanguageModel({
      model: provider.model,
      middleware: compactionMiddleware({
        sessionService,
        compaction: { tokenThreshold: 50_000, eventRetentionSize: 6 },
        summarizer: new DigestSummarizer(),
        logger: false,
        onCompaction: (report) => reports.push(`${report.trigger}:${report.outcome}`),
      }),
    });
    const result = await generateText({
      model,
      prompt: 'Look up eight items.',
      tools: {
        lookup: tool({
          inputSchema: z.object({ item: z.number() }),
          execute: async ({ item }) => ({ item, detail: 'details '.repeat(40) }),
        }),
      },
      stopWhen: stepCountIs(20),
      maxRetries: 0,
      providerOptions: { orrery: { conversationId: 'o' } },
    });
    expect(result.text).toBe('Done after 8 lookups.');
    expect(reports).toEqual(['overflow:compacted']);
    // The refused prompt held everything; the retry starts with the summary and is smaller.
    expect(startsWithSummary(provider.prompts[6]!)).toBe(false);
    expect(startsWithSummary(provider.prompts[7]!)).toBe(true);
    expect(provider.prompts[7]!.length).toBeLessThan(provider.prompts[6]!.length);
    for (const prompt of provider.prompts) expect(orphans(prompt)).toEqual([]);
  });

  it('a second refusal is a ContextOverflowError', async () => {
    const sessionService = new InMemorySessionService();
    const provider = scriptedProvider({ calls: 8 });
    provider.failOn.set(6, overflowError);
    provider.failOn.set(7, overflowError);
    const model = wrapLanguageModel({
      model: provider.model,
      middleware: compactionMiddleware({
        sessionService,
        compaction: { tokenThreshold: 50_000, eventRetentionSize: 6 },
        summarizer: new DigestSummarizer(),
        logger: false,
      }),
    });
    const run = generateText({
      model,
      prompt: 'Look up eight items.',
      tools: {
        lookup: tool({
          inputSchema: z.object({ item: z.number() }),
          execute: async ({ item }) => ({ item }),
        }),
      },
      stopWhen: stepCountIs(20),
      maxRetries: 0,
      providerOptions: { orrery: { conversationId: 'o2' } },
    });
    const error = await run.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(ContextOverflowError.isInstance(error)).toBe(true);
    expect(provider.prompts).toHaveLength(8);
  });
});

describe('compactionMiddleware with ToolLoopAgent', () => {
  it('compacts the agent loop', async () => {
    const sessionService = new InMemorySessionService();
    const provider = scriptedProvider({ calls: 10 });
    const agent = new ToolLoopAgent({
      model: wrapLanguageModel({
        model: provider.model,
        middleware: compactionMiddleware({
          sessionService,
          compaction: { tokenThreshold: 1_200, eventRetentionSize: 4 },
          summarizer: new DigestSummarizer(),
          logger: false,
        }),
      }),
      tools: {
        lookup: tool({
          inputSchema: z.object({ item: z.number() }),
          execute: async ({ item }) => ({ item, detail: 'details '.repeat(60) }),
        }),
      },
      stopWhen: stepCountIs(20),
      providerOptions: { orrery: { conversationId: 'agent' } },
    });
    const result = await agent.generate({ prompt: 'Look up ten items.' });
    expect(result.text).toBe('Done after 10 lookups.');
    expect((await events(sessionService, 'agent')).filter((event) => event.content)).toHaveLength(
      22,
    );
    expect(provider.prompts.some(startsWithSummary)).toBe(true);
    for (const prompt of provider.prompts) expect(orphans(prompt)).toEqual([]);
  });
});
