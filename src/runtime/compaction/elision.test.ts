/**
 * The elision tier end to end with the scripted model: a long tool session first gets an
 * elision rule (old outputs become placeholders), the model reads one back with `recall`, and
 * later, when eliding no longer suffices, a summary is written.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ELISION_PLACEHOLDER_PREFIX } from '../../compaction/elision.js';
import type { Event } from '../../events/types.js';
import type { ModelRequest } from '../../models/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { ScriptedModel, textResponse, toolCallResponse } from '../../testing/scripted-model.js';
import { LlmAgent } from '../agents/llm-agent.js';
import { FunctionTool } from '../tools/function-tool.js';
import type { RecallResult } from '../tools/recall-tool.js';
import { Runner } from '../turn/runner.js';
import type { CompactionReport } from './compactor.js';

const key = { appName: 'elision', userId: 'u', sessionId: 's' };

/** A file's content: about 1 550 estimated tokens, multi-line (recall renders it verbatim). */
function fileContent(path: string): string {
  return Array.from(
    { length: 180 },
    (_, line) => `line ${line} of ${path}: value ${line * 7} kept`,
  ).join('\n');
}

function readFileTool() {
  return new FunctionTool({
    name: 'read_file',
    description: 'Read a file.',
    parameters: z.object({ path: z.string() }),
    execute: async ({ path }) => ({ content: path === 'small' ? 'tiny' : fileContent(path) }),
  });
}

/** Every function response payload of a request, by call id. */
function responses(request: ModelRequest | undefined): Map<string, Record<string, unknown>> {
  const found = new Map<string, Record<string, unknown>>();
  for (const content of request?.contents ?? []) {
    for (const part of content.parts) {
      if (part.functionResponse)
        found.set(part.functionResponse.id, part.functionResponse.response);
    }
  }
  return found;
}

function placeholderSeq(response: Record<string, unknown> | undefined): number {
  const text = String(response?.elided ?? '');
  const match = /seq (\d+);/.exec(text);
  if (!match) throw new Error(`not a placeholder: ${text}`);
  return Number(match[1]);
}

describe('elision before summary (Runner, scripted model)', () => {
  it('elides old outputs first, recall reads one back whole, a summary comes later', async () => {
    const sessionService = new InMemorySessionService();
    await sessionService.createSession(key);
    const reports: CompactionReport[] = [];
    let recalledSeq = 0;
    const model = new ScriptedModel({
      script: [
        toolCallResponse([{ id: 'a', name: 'read_file', args: { path: 'a.txt' } }]),
        toolCallResponse([{ id: 'b', name: 'read_file', args: { path: 'b.txt' } }]),
        toolCallResponse([{ id: 'c', name: 'read_file', args: { path: 'c.txt' } }]),
        toolCallResponse([{ id: 'd', name: 'read_file', args: { path: 'small' } }]),
        (request) => {
          recalledSeq = placeholderSeq(responses(request).get('a'));
          return toolCallResponse([
            { id: 'r', name: 'recall', args: { fromSeq: recalledSeq, toSeq: recalledSeq } },
          ]);
        },
        textResponse(`Done. ${'Here is what the files say, at length. '.repeat(500)}`),
      ],
    });
    const runner = new Runner({
      appName: key.appName,
      agent: new LlmAgent({ name: 'agent', model, tools: [readFileTool()] }),
      sessionService,
      compaction: {
        tokenThreshold: 4000,
        eventRetentionSize: 2,
        elision: { minReclaimTokens: 500 },
      },
      summarizer: new DigestSummarizer(),
      plugins: [{ name: 'reports', afterCompaction: ({ report }) => void reports.push(report) }],
      logger: false,
    });
    for await (const _event of runner.run({ ...key, newMessage: 'Read a, b and c.' })) {
      // drain
    }

    const history = (await sessionService.getSession({ ...key, events: 'full' }))?.events ?? [];
    const elisions = history.filter((event) => event.actions.elision);
    const compactions = history.filter((event) => event.actions.compaction);
    expect(elisions).toHaveLength(1);
    expect(compactions).toHaveLength(1);
    expect(elisions[0]!.seq).toBeLessThan(compactions[0]!.seq);
    const responseSeqs = history
      .filter((event) => event.content?.parts.some((part) => part.functionResponse))
      .map((event) => event.seq);
    // Up to b's response: c is the step in progress when the rule was written.
    expect(elisions[0]!.actions.elision).toMatchObject({
      throughSeq: responseSeqs[1],
      minOutputBytes: 2000,
      trigger: 'token_threshold',
    });
    expect(reports.filter((report) => report.outcome !== 'skipped')).toMatchObject([
      { outcome: 'elided', tier: 'elision', elidedThroughSeq: responseSeqs[1], elidedOutputs: 2 },
      { outcome: 'compacted', tier: 'summary' },
    ]);

    // The request after the rule: a and b are placeholders, c (the newest step) is whole.
    const afterRule = responses(model.calls[3]);
    expect(String(afterRule.get('a')?.elided)).toBe(
      `${ELISION_PLACEHOLDER_PREFIX}read_file, ${JSON.stringify({ content: fileContent('a.txt') }).length} bytes, seq ${responseSeqs[0]}; recall({ fromSeq: ${responseSeqs[0]}, toSeq: ${responseSeqs[0]} }) reads it]`,
    );
    expect(afterRule.get('b')?.elided).toContain(ELISION_PLACEHOLDER_PREFIX);
    expect(afterRule.get('c')).toEqual({ content: fileContent('c.txt') });
    // Recall is offered from the next request on, and gives back the exact output.
    expect(model.calls[4]?.tools?.map((tool) => tool.name)).toContain('recall');
    expect(recalledSeq).toBe(responseSeqs[0]);
    const recalled = responses(model.calls[5]).get('r') as unknown as RecallResult;
    expect(recalled.items).toHaveLength(1);
    expect(recalled.items?.[0]?.seq).toBe(recalledSeq);
    expect(recalled.items?.[0]?.text).toContain(fileContent('a.txt'));
    // Stored events are never changed: the record holds a's whole output.
    const storedA = history.find((event: Event) => event.seq === responseSeqs[0]);
    expect(storedA?.content?.parts[0]?.functionResponse?.response).toEqual({
      content: fileContent('a.txt'),
    });
    expect(model.remaining).toBe(0);
  });
});
