import { describe, expect, it } from 'vitest';
import { ModelError } from '../models/errors.js';
import { ScriptedModel, textResponse } from '../testing/scripted-model.js';
import { DigestSummarizer } from './digest-summarizer.js';
import { SummarizerError } from './errors.js';
import { withFallback } from './fallback-summarizer.js';
import { LlmEventSummarizer } from './llm-event-summarizer.js';
import { userText } from './test-helpers/test-events.js';

describe('withFallback', () => {
  it('uses the primary when it succeeds', async () => {
    const model = new ScriptedModel({ modelId: 'cheap', script: [textResponse('model summary')] });
    const summarizer = withFallback({
      primary: new LlmEventSummarizer({ model }),
      fallback: new DigestSummarizer(),
    });
    const summary = await summarizer.summarize({ events: [userText(1, 'hi')] });
    expect(summary?.summarizer).toBe('cheap');
    // Labelled with the seq range it covers (seq-labels.ts).
    expect(summary?.content.parts[0]?.text).toBe('model summary (seq 1)');
    expect(summarizer.name).toBe('cheap');
  });

  it('falls back when the primary fails, naming the fallback and the failure', async () => {
    const model = new ScriptedModel({
      modelId: 'cheap',
      script: [new ModelError({ kind: 'fatal', message: '401' })],
    });
    const failures: string[] = [];
    const summarizer = withFallback({
      primary: new LlmEventSummarizer({ model }),
      fallback: new DigestSummarizer(),
      onFallback: ({ primary, fallback }) => failures.push(`${primary}->${fallback}`),
    });
    const summary = await summarizer.summarize({ events: [userText(1, 'fix INC-4411')] });
    expect(summary?.summarizer).toBe('digest');
    expect(summary?.content.parts[0]?.text).toContain('fix INC-4411');
    expect(SummarizerError.isInstance(summary?.primaryError)).toBe(true);
    expect(failures).toEqual(['cheap->digest']);
  });

  it('records the fallback on the summary, with credentials masked in the reason', async () => {
    const primary = {
      name: 'openai:gpt-4o-mini',
      summarize: async () => {
        throw new Error(
          'Incorrect API key provided: sk-proj-abcdefghijklmnop1234 (Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.x)',
        );
      },
    };
    const summarizer = withFallback({ primary, fallback: new DigestSummarizer() });
    const summary = await summarizer.summarize({ events: [userText(1, 'hi')] });
    expect(summary?.summarizer).toBe('digest');
    expect(summary?.fallback?.from).toBe('openai:gpt-4o-mini');
    expect(summary?.fallback?.reason).toMatch(/^Incorrect API key provided: \[REDACTED:/);
    expect(summary?.fallback?.reason).not.toContain('abcdefghijklmnop1234');
    expect(summary?.fallback?.reason).not.toContain('eyJhbGciOiJIUzI1NiJ9');
  });

  it('does not mask a caller abort with the fallback', async () => {
    const controller = new AbortController();
    controller.abort();
    const summarizer = withFallback({
      primary: new LlmEventSummarizer({ model: new ScriptedModel({ script: [] }) }),
      fallback: new DigestSummarizer(),
    });
    await expect(
      summarizer.summarize({ events: [userText(1, 'hi')], signal: controller.signal }),
    ).rejects.toSatisfy((error) => SummarizerError.isInstance(error) && error.reason === 'aborted');
  });
});
