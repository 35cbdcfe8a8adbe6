import { describe, expect, it } from 'vitest';
import { InvalidConfigError } from '../compaction/errors.js';
import { estimateTextTokens } from '../compaction/token-estimate.js';
import type { Content, Event } from '../events/types.js';
import { ModelError } from '../models/errors.js';
import type { ModelRequest } from '../models/types.js';
import { ScriptedModel, textResponse } from '../testing/scripted-model.js';
import { SummarizerError } from './errors.js';
import { LlmEventSummarizer } from './llm-event-summarizer.js';
import { agentText, makeEvent, userText } from './test-helpers/test-events.js';

function promptOf(request: ModelRequest): string {
  return request.contents[0]?.parts[0]?.text ?? '';
}

function summaryContent(text: string): Content {
  return { role: 'model', parts: [{ text }] };
}

async function failureOf(promise: Promise<unknown>): Promise<SummarizerError> {
  try {
    await promise;
  } catch (error) {
    if (SummarizerError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a SummarizerError');
}

/** Events whose texts each hold a unique marker, so we can see which call read them. */
function markedEvents(count: number): { events: Event[]; markers: string[] } {
  const events: Event[] = [];
  const markers: string[] = [];
  for (let index = 1; index <= count; index++) {
    const marker = `MARK${String(index).padStart(3, '0')}`;
    markers.push(marker);
    const filler = 'the service restarted and the queue drained slowly '.repeat(4);
    events.push(
      index % 2 ? userText(index, `${marker} ${filler}`) : agentText(index, `${marker} ${filler}`),
    );
  }
  return { events, markers };
}

describe('LlmEventSummarizer construction', () => {
  it('rejects a template without {conversation_history}, naming promptTemplate', () => {
    const model = new ScriptedModel({ script: [] });
    let caught: unknown;
    try {
      new LlmEventSummarizer({ model, promptTemplate: 'Summarize {previous_summary}' });
    } catch (error) {
      caught = error;
    }
    expect(InvalidConfigError.isInstance(caught)).toBe(true);
    expect((caught as InvalidConfigError).field).toBe('promptTemplate');
    expect((caught as Error).message).toContain('promptTemplate');
  });

  it('rejects bad numeric options, naming them', () => {
    const model = new ScriptedModel({ script: [] });
    expect(() => new LlmEventSummarizer({ model, maxRetries: -1 })).toThrow(/maxRetries=-1/);
    expect(() => new LlmEventSummarizer({ model, maxInputTokens: 1.5 })).toThrow(/maxInputTokens/);
  });

  it('uses the model id as its name unless told', () => {
    const model = new ScriptedModel({ modelId: 'google:gemini-flash-latest', script: [] });
    expect(new LlmEventSummarizer({ model }).name).toBe('google:gemini-flash-latest');
    expect(new LlmEventSummarizer({ model, name: 'cheap' }).name).toBe('cheap');
  });
});

describe('LlmEventSummarizer.summarize', () => {
  it('returns null for no events and no previous summary, without calling the model', async () => {
    const model = new ScriptedModel({ script: [] });
    const summarizer = new LlmEventSummarizer({ model });
    expect(await summarizer.summarize({ events: [] })).toBeNull();
    expect(model.calls).toHaveLength(0);
  });

  it('summarizes in one call: rendered events and the previous summary in the prompt', async () => {
    const usage = { promptTokenCount: 900, candidatesTokenCount: 120, totalTokenCount: 1020 };
    const model = new ScriptedModel({ script: [textResponse('## User goal\nfix it', usage)] });
    const summarizer = new LlmEventSummarizer({ model });
    const events = [
      userText(1, 'Please fix INC-4411'),
      makeEvent(2, 'agent', [
        { text: 'private musing', thought: true },
        { functionCall: { id: 'c1', name: 'get_ticket', args: { id: 'INC-4411' } } },
      ]),
    ];
    const summary = await summarizer.summarize({
      events,
      previousSummary: summaryContent('User works on the billing service.'),
    });
    // A rolling summary: its unlabelled line gets the whole range from seq 1 (seq-labels.ts).
    expect(summary).toEqual({
      content: summaryContent('## User goal\nfix it (seq 1-2)'),
      usageMetadata: usage,
    });
    expect(model.calls).toHaveLength(1);
    const prompt = promptOf(model.calls[0]!);
    expect(prompt).toContain('Please fix INC-4411');
    expect(prompt).toContain('call get_ticket(c1) {"id":"INC-4411"}');
    expect(prompt).toContain('User works on the billing service.');
    expect(prompt).not.toContain('private musing');
    expect(model.calls[0]!.contents[0]!.role).toBe('user');
  });

  it('folds a window over the budget in chunks, each seeded with the summary so far', async () => {
    const { events, markers } = markedEvents(80);
    const model = new ScriptedModel({
      script: Array.from(
        { length: 30 },
        () => (_request: ModelRequest, callIndex: number) =>
          textResponse(`SUMMARY-${callIndex}`, {
            promptTokenCount: 100 + callIndex,
            candidatesTokenCount: 10,
            totalTokenCount: 110 + callIndex,
          }),
      ),
    });
    const maxInputTokens = 1500;
    const summarizer = new LlmEventSummarizer({ model, maxInputTokens });
    const summary = await summarizer.summarize({
      events,
      previousSummary: summaryContent('PREVIOUS-SUMMARY'),
    });
    const calls = model.calls.map(promptOf);
    expect(calls.length).toBeGreaterThan(2);
    expect(calls[0]).toContain('PREVIOUS-SUMMARY');
    for (let index = 1; index < calls.length; index++) {
      expect(calls[index]).toContain(`SUMMARY-${index - 1}`);
      expect(calls[index]).not.toContain('PREVIOUS-SUMMARY');
    }
    // Every event reached some call; each call stays within the budget.
    for (const marker of markers) {
      expect(calls.some((prompt) => prompt.includes(marker))).toBe(true);
    }
    for (const prompt of calls)
      expect(estimateTextTokens(prompt)).toBeLessThanOrEqual(maxInputTokens + 4);
    expect(getSummaryText(summary?.content)).toMatch(
      new RegExp(`^SUMMARY-${calls.length - 1} \\(seq 1-\\d+\\)$`),
    );
    const count = calls.length;
    expect(summary?.usageMetadata).toEqual({
      promptTokenCount: 100 * count + (count * (count - 1)) / 2,
      candidatesTokenCount: 10 * count,
      totalTokenCount: 110 * count + (count * (count - 1)) / 2,
    });
  });

  it('splits one event larger than the budget so all of it is read', async () => {
    const huge = `START-OF-LOG ${'disk usage at ninety percent on node seven '.repeat(400)} END-OF-LOG`;
    const model = new ScriptedModel({
      script: Array.from(
        { length: 40 },
        () => (_request: ModelRequest, callIndex: number) => textResponse(`S${callIndex}`),
      ),
    });
    const summarizer = new LlmEventSummarizer({ model, maxInputTokens: 2000 });
    await summarizer.summarize({ events: [userText(1, huge)] });
    const calls = model.calls.map(promptOf);
    expect(calls.length).toBeGreaterThan(1);
    expect(calls[0]).toContain('START-OF-LOG');
    expect(calls.at(-1)).toContain('END-OF-LOG');
    expect(calls.slice(1).every((prompt) => prompt.includes('[continued]'))).toBe(true);
  });

  it('splits a chunk the model rejects as too long and reads it in halves', async () => {
    const { events, markers } = markedEvents(6);
    const model = new ScriptedModel({
      script: [
        new ModelError({ kind: 'context_overflow', message: 'prompt is too long' }),
        ...Array.from(
          { length: 10 },
          () => (_request: ModelRequest, callIndex: number) => textResponse(`S${callIndex}`),
        ),
      ],
    });
    const summarizer = new LlmEventSummarizer({ model });
    const summary = await summarizer.summarize({ events });
    const calls = model.calls.map(promptOf);
    expect(calls.length).toBeGreaterThanOrEqual(3);
    expect(calls[1]!.length).toBeLessThan(calls[0]!.length);
    for (const marker of markers) {
      expect(calls.slice(1).some((prompt) => prompt.includes(marker))).toBe(true);
    }
    expect(getSummaryText(summary?.content)).toBe(`S${calls.length - 1} (seq 1-6)`);
  });

  it('gives up, bounded, when every chunk overflows the model', async () => {
    const { events } = markedEvents(20);
    const overflow = () => {
      throw new ModelError({ kind: 'context_overflow', message: 'too long' });
    };
    const model = new ScriptedModel({ script: Array.from({ length: 50 }, () => overflow) });
    const error = await failureOf(new LlmEventSummarizer({ model }).summarize({ events }));
    expect(error.reason).toBe('model_error');
    expect(error.message).toContain('cannot split further');
    expect(model.calls.length).toBeLessThan(20);
  });

  it('retries retryable errors with backoff, then succeeds', async () => {
    const model = new ScriptedModel({
      script: [
        new ModelError({ kind: 'retryable', message: '503 overloaded' }),
        new ModelError({ kind: 'retryable', message: '429', retryAfterMs: 5 }),
        textResponse('recovered'),
      ],
    });
    const summarizer = new LlmEventSummarizer({ model, retryBaseDelayMs: 1 });
    const summary = await summarizer.summarize({ events: [userText(1, 'hi')] });
    expect(getSummaryText(summary?.content)).toBe('recovered (seq 1)');
    expect(model.calls).toHaveLength(3);
  });

  it('gives up after maxRetries, and at once on a fatal error', async () => {
    const retryable = new ModelError({ kind: 'retryable', message: '503' });
    const model = new ScriptedModel({ script: [retryable, retryable] });
    const summarizer = new LlmEventSummarizer({ model, maxRetries: 1, retryBaseDelayMs: 1 });
    const error = await failureOf(summarizer.summarize({ events: [userText(1, 'hi')] }));
    expect(error.reason).toBe('model_error');
    expect(error.cause).toBe(retryable);
    expect(model.remaining).toBe(0);

    const fatal = new ModelError({ kind: 'fatal', message: '401 bad key' });
    const fatalModel = new ScriptedModel({ script: [fatal] });
    const fatalError = await failureOf(
      new LlmEventSummarizer({ model: fatalModel }).summarize({ events: [userText(1, 'hi')] }),
    );
    expect(fatalError.reason).toBe('model_error');
    expect(fatalError.cause).toBe(fatal);
    expect(fatalModel.calls).toHaveLength(1);
  });

  it('fails with reason timeout when the model does not answer in time', async () => {
    const model = new ScriptedModel({ script: [() => new Promise(() => {})] });
    const summarizer = new LlmEventSummarizer({ model, timeoutMs: 20, name: 'slow' });
    const error = await failureOf(summarizer.summarize({ events: [userText(1, 'hi')] }));
    expect(error.reason).toBe('timeout');
    expect(error.summarizer).toBe('slow');
    expect(error.message).toContain('timeoutMs=20');
  });

  it('fails with reason empty on an answer without text', async () => {
    for (const response of [
      textResponse('   '),
      { content: { role: 'model' as const, parts: [] }, finishReason: 'stop' },
      { content: { role: 'model' as const, parts: [{ text: 'thinking', thought: true }] } },
    ]) {
      const model = new ScriptedModel({ script: [response] });
      const error = await failureOf(
        new LlmEventSummarizer({ model }).summarize({ events: [userText(1, 'hi')] }),
      );
      expect(error.reason).toBe('empty');
    }
  });

  it('fails with reason blocked on a filtered answer, even one holding text', async () => {
    for (const finishReason of ['content-filter', 'SAFETY']) {
      const model = new ScriptedModel({
        script: [{ ...textResponse('partial text'), finishReason }],
      });
      const error = await failureOf(
        new LlmEventSummarizer({ model }).summarize({ events: [userText(1, 'hi')] }),
      );
      expect(error.reason).toBe('blocked');
      expect(error.message).toContain(finishReason);
    }
  });

  it('propagates a caller abort: before, during a call and during a backoff', async () => {
    const aborted = new AbortController();
    aborted.abort();
    const idle = new ScriptedModel({ script: [] });
    const before = await failureOf(
      new LlmEventSummarizer({ model: idle }).summarize({
        events: [userText(1, 'hi')],
        signal: aborted.signal,
      }),
    );
    expect(before.reason).toBe('aborted');
    expect(idle.calls).toHaveLength(0);

    const duringCall = new AbortController();
    let seenSignal: AbortSignal | undefined;
    const hanging = new ScriptedModel({
      script: [
        (request) => {
          seenSignal = request.signal;
          setTimeout(() => duringCall.abort(), 5);
          return new Promise(() => {});
        },
      ],
    });
    const during = await failureOf(
      new LlmEventSummarizer({ model: hanging }).summarize({
        events: [userText(1, 'hi')],
        signal: duringCall.signal,
      }),
    );
    expect(during.reason).toBe('aborted');
    expect(seenSignal?.aborted).toBe(true);

    const duringBackoff = new AbortController();
    const limited = new ScriptedModel({
      script: [
        () => {
          setTimeout(() => duringBackoff.abort(), 5);
          throw new ModelError({ kind: 'retryable', message: '429', retryAfterMs: 20_000 });
        },
      ],
    });
    const backoff = await failureOf(
      new LlmEventSummarizer({ model: limited }).summarize({
        events: [userText(1, 'hi')],
        signal: duringBackoff.signal,
      }),
    );
    // A 20 s backoff that ignored the abort would outlast the test's timeout.
    expect(backoff.reason).toBe('aborted');
    expect(limited.calls).toHaveLength(1);
  });

  it('fails at once when the provider asks to wait longer than maxRetryDelayMs', async () => {
    const model = new ScriptedModel({
      script: [new ModelError({ kind: 'retryable', message: '429', retryAfterMs: 120_000 })],
    });
    const error = await failureOf(
      new LlmEventSummarizer({ model, maxRetryDelayMs: 30_000 }).summarize({
        events: [userText(1, 'hi')],
      }),
    );
    expect(error.reason).toBe('model_error');
    expect(model.calls).toHaveLength(1);
  });

  it('keeps the previous summary without a call when the events hold nothing to read', async () => {
    const model = new ScriptedModel({ script: [] });
    const summarizer = new LlmEventSummarizer({ model });
    const thoughtOnly = makeEvent(1, 'agent', [{ text: 'hmm', thought: true }]);
    const summary = await summarizer.summarize({
      events: [thoughtOnly],
      previousSummary: summaryContent('kept'),
    });
    expect(summary).toEqual({ content: summaryContent('kept') });
    expect(await summarizer.summarize({ events: [thoughtOnly] })).toBeNull();
    expect(model.calls).toHaveLength(0);
  });
});

function getSummaryText(content: Content | undefined): string | undefined {
  return content?.parts[0]?.text;
}
