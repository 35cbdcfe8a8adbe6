/**
 * A stored checkpoint that cannot be one (its JSON range corrupted) is passed over by the store;
 * the Runner logs the store's `checkpoint_skipped` warning, and the model still gets every event
 * after the previous summary, the new message included.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { SqliteSessionService } from '../../sessions/sqlite/sqlite-session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { compactionEvent, userTextEvent } from '../../testing/event-builders.js';
import { ScriptedModel, textResponse } from '../../testing/scripted-model.js';
import { LlmAgent } from '../agents/llm-agent.js';
import { Runner } from '../turn/runner.js';

const key = { appName: 'app', userId: 'u', sessionId: 's' };
const folder = mkdtempSync(join(tmpdir(), 'orrery-skipped-checkpoint-'));

afterEach(() => rmSync(folder, { recursive: true, force: true }));

it('the Runner logs a skipped checkpoint and sends the events after the previous summary', async () => {
  const sessionService = new SqliteSessionService({ path: join(folder, 'orrery.db') });
  await sessionService.createSession(key);
  for (const text of ['m1', 'm2', 'm3']) {
    await sessionService.appendEvent({ ...key, event: userTextEvent({ text }) });
  }
  const first = await sessionService.appendCompaction({
    ...key,
    event: compactionEvent({ startSeq: 1, endSeq: 2, text: 'old summary' }),
    expectedCheckpointSeq: null,
  });
  const second = await sessionService.appendCompaction({
    ...key,
    event: compactionEvent({ startSeq: 1, endSeq: 3, text: 'new summary' }),
    expectedCheckpointSeq: first.seq,
  });
  const database = await sessionService.getDatabase();
  // One wrong digit: endSeq 3 -> 30 in the JSON only.
  database
    .prepare(
      "UPDATE events SET event = json_set(event, '$.actions.compaction.endSeq', 30) WHERE seq = ?",
    )
    .run(second.seq);

  const model = new ScriptedModel({ script: [textResponse('ok')] });
  const warnings: Record<string, unknown>[] = [];
  const logger = {
    warn: (fields: Record<string, unknown>) => warnings.push(fields),
    info: () => {},
    child: () => logger,
  };
  const runner = new Runner({
    appName: key.appName,
    agent: new LlmAgent({ name: 'agent', model }),
    sessionService,
    compaction: { tokenThreshold: 1_000_000, eventRetentionSize: 2 },
    summarizer: new DigestSummarizer(),
    logger: logger as never,
  });
  for await (const _event of runner.run({
    userId: key.userId,
    sessionId: key.sessionId,
    newMessage: 'the new message',
  })) {
    // drain
  }
  const text = JSON.stringify(model.calls[0]!.contents);
  expect(text).toContain('old summary');
  expect(text).toContain('m3');
  expect(text).toContain('the new message');
  expect(warnings).toContainEqual(
    expect.objectContaining({
      msgType: 'view_warning',
      kind: 'checkpoint_skipped',
      seq: second.seq,
    }),
  );
  await sessionService.close();
});
