import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../models/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import type { SessionService } from '../../sessions/session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { ScriptedModel, textResponse, toolCallResponse } from '../../testing/scripted-model.js';
import { LlmAgent } from '../agents/llm-agent.js';
import type { RecallResult } from '../tools/recall-tool.js';
import { Runner } from '../turn/runner.js';
import { withEmbeddingSearch } from './embedding-search.js';
import { synonymEmbeddingModel } from './test-helpers/synonym-embedding-model.js';

const appName = 'recall-embeddings';
const userId = 'u';
const key = { appName, userId, sessionId: 's' };
const fact = 'The staging gateway listens on port 8443, decided with Priya on Monday.';
/** No word of `fact`: only the embeddings connect them. */
const paraphrase = 'which socket does the preprod proxy bind to';

async function collect(events: AsyncIterable<unknown>): Promise<void> {
  for await (const _event of events) {
    // drain
  }
}

function responseIn(request: ModelRequest | undefined, id: string): RecallResult {
  for (const content of request?.contents ?? []) {
    for (const part of content.parts) {
      if (part.functionResponse?.id === id)
        return part.functionResponse.response as unknown as RecallResult;
    }
  }
  throw new Error(`no response to ${id} in the request`);
}

/** Two turns: the fact, compacted after the first; then the model recalls a paraphrase. */
async function recallParaphrase(decorate: (store: SessionService) => SessionService) {
  const store = new InMemorySessionService();
  await store.createSession(key);
  const model = new ScriptedModel({
    script: [
      textResponse(`Noted. ${'I will keep that in mind. '.repeat(60)}`),
      toolCallResponse([{ id: 'q1', name: 'recall', args: { query: paraphrase } }]),
      textResponse('Port 8443.'),
    ],
  });
  const runner = new Runner({
    appName,
    agent: new LlmAgent({ name: 'agent', model }),
    sessionService: decorate(store),
    compaction: { tokenThreshold: 100, eventRetentionSize: 0 },
    summarizer: new DigestSummarizer(),
    logger: false,
  });
  await collect(runner.run({ userId, sessionId: 's', newMessage: fact }));
  const { checkpoint } = await store.loadView(key);
  expect(checkpoint?.actions.compaction.endSeq).toBeGreaterThanOrEqual(1);
  await collect(runner.run({ userId, sessionId: 's', newMessage: 'Which port was it?' }));
  return responseIn(model.calls[2], 'q1');
}

describe('recall through a store with embedding search', () => {
  it('gives the model the original event for a paraphrase after a compaction', async () => {
    const model = synonymEmbeddingModel();
    const answer = await recallParaphrase((store) =>
      withEmbeddingSearch({ sessionService: store, embeddingModel: model, logger: false }),
    );
    const hit = answer.passages?.[0]?.items.find((item) => item.hit);
    expect(hit).toMatchObject({ seq: 1, author: 'user' });
    expect(hit?.text).toContain(fact);
    // Recall searches only what the summary replaced, and so the index reads only that.
    const embedded = model.doEmbedCalls.flatMap((call) => call.values);
    expect(embedded).toContain(fact);
    expect(embedded).not.toContain('Which port was it?');
  });

  it('finds nothing for the same paraphrase by words alone', async () => {
    const answer = await recallParaphrase((store) => store);
    expect(answer.passages).toEqual([]);
    expect(answer.note).toBe('nothing earlier matches these words');
  });
});
