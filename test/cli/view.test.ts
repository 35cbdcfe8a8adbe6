import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Content } from '../../src/index.js';
import { SqliteSessionService } from '../../src/sessions/sqlite/index.js';
import { HistoryBuilder } from '../../src/testing/index.js';
import { cli, tempDir } from './in-process.js';

describe('orrery view', () => {
  it('shows the request the runtime would send: an orphan response gets its stored call back', async () => {
    const db = join(tempDir(), 'view.db');
    const service = new SqliteSessionService({ path: db });
    const key = { appName: 'orrery', userId: 'local', sessionId: 'legacy' };
    await service.createSession(key);
    // Legacy data: a compaction that summarized a call (seq 2) but not its response (seq 3).
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'read the log' });
    history.functionCalls({ invocationId: 'i1', calls: ['c1'] });
    history.functionResponses({ invocationId: 'i1', responses: ['c1'] });
    history.modelText({ invocationId: 'i1', text: 'the log is fine' });
    for (const event of history.events) {
      const { seq: _seq, ...rest } = event;
      await service.appendEvent({ ...key, event: rest });
    }
    await service.appendCompaction({
      ...key,
      event: {
        id: 'compaction',
        invocationId: 'c',
        author: 'user',
        timestamp: 2000,
        actions: {
          compaction: {
            startSeq: 1,
            endSeq: 2,
            startTimestamp: 1001,
            endTimestamp: 1002,
            compactedContent: { role: 'model', parts: [{ text: 'asked to read the log' }] },
            trigger: 'manual',
            tokensBefore: 10,
            tokensAfter: 5,
            summarizer: 'test',
          },
        },
      },
      expectedCheckpointSeq: null,
    });
    await service.close();

    const result = await cli(['view', 'legacy', '--json', '--db', db]);
    expect(result.code).toBe(0);
    const output = JSON.parse(result.stdout) as { contents: Content[]; warnings: unknown[] };
    const parts = output.contents.flatMap((content) => content.parts);
    const callIndex = parts.findIndex((part) => part.functionCall?.id === 'c1');
    const responseIndex = parts.findIndex((part) => part.functionResponse?.id === 'c1');
    expect(callIndex).toBeGreaterThanOrEqual(0);
    expect(responseIndex).toBeGreaterThan(callIndex);
    expect(output.warnings).toEqual([expect.objectContaining({ kind: 'orphan_call_restored' })]);
  });
});

describe('the trigger figure of a live session', () => {
  it('names the agent, not a recording harness, as what else the reported prompt counted', async () => {
    const db = join(tempDir(), 'live.db');
    const service = new SqliteSessionService({ path: db });
    const key = { appName: 'orrery', userId: 'local', sessionId: 'live' };
    await service.createSession(key);
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'what changed?' });
    const answer = history.modelText({ invocationId: 'i1', text: 'the deploy at 14:00' });
    for (const event of history.events) {
      const { seq: _seq, ...rest } = event;
      const usageMetadata =
        event === answer ? { promptTokenCount: 4_321, candidatesTokenCount: 9 } : undefined;
      await service.appendEvent({
        ...key,
        event: { ...rest, ...(usageMetadata && { usageMetadata }) },
      });
    }
    await service.close();
    const human = (await cli(['view', 'live', '--db', db])).stdout;
    expect(human).toContain('the model reported 4,321 prompt tokens at seq 2');
    expect(human).toContain(
      "(all it was sent, the agent's instruction and tool declarations included)",
    );
    expect(human).not.toContain('recording harness');
  });
});
