/**
 * A scripted ADK-JS model for tests: each user message gets one `lookup` call, then a final
 * text answer. It records every request's contents, and answers summarize requests (ADK-JS's
 * `LlmSummarizer`) with a fixed summary.
 */
import { BaseLlm, type BaseLlmConnection, type LlmRequest, type LlmResponse } from '@google/adk';
import type { Content } from '@google/genai';

export class StubLlm extends BaseLlm {
  /** The contents of every request, in order. */
  readonly requests: Content[][] = [];
  private summaries = 0;

  constructor() {
    super({ model: 'stub' });
  }

  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void> {
    const contents = structuredClone(request.contents);
    const first = contents[0]?.parts?.[0]?.text ?? '';
    if (contents.length === 1 && first.startsWith('The following is a conversation history')) {
      this.summaries++;
      yield { content: { role: 'model', parts: [{ text: `ADK summary ${this.summaries}` }] } };
      return;
    }
    this.requests.push(contents);
    const last = contents.at(-1);
    const question = last?.parts?.[0]?.text;
    const promptTokenCount = Math.ceil(JSON.stringify(contents).length / 4);
    if (last?.role === 'user' && question !== undefined) {
      yield {
        content: {
          role: 'model',
          parts: [{ functionCall: { name: 'lookup', args: { question } } }],
        },
        usageMetadata: { promptTokenCount },
      };
      return;
    }
    yield {
      content: { role: 'model', parts: [{ text: `Answer: ${'details '.repeat(20)}` }] },
      usageMetadata: { promptTokenCount },
    };
  }

  async connect(): Promise<BaseLlmConnection> {
    throw new Error('StubLlm has no live connection');
  }
}

/** Calls without a result and results without a call, by name in order (ADK strips its ids). */
export function findOrphans(contents: Content[]): string[] {
  const open: string[] = [];
  const orphans: string[] = [];
  for (const content of contents) {
    for (const part of content.parts ?? []) {
      if (part.functionCall) open.push(part.functionCall.name ?? '');
      if (part.functionResponse) {
        const index = open.indexOf(part.functionResponse.name ?? '');
        if (index < 0) orphans.push(`result without call: ${part.functionResponse.name}`);
        else open.splice(index, 1);
      }
    }
  }
  return [...orphans, ...open.map((name) => `call without result: ${name}`)];
}
