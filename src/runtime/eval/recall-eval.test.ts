import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../events/types.js';
import { SqliteSessionService } from '../../sessions/sqlite/sqlite-session-service.js';
import { generateRecallConversations } from '../../testing/recall-conversations.js';
import { evaluateRecall, type RecallConversation } from './recall-eval.js';

describe('evaluateRecall with the elision tier', () => {
  it('records elision rules instead of summaries, and recall still reaches every fact', async () => {
    const [conversation] = generateRecallConversations({ seed: 1, conversations: 1 });
    const off = await evaluateRecall({ conversation: conversation!, threshold: 8000 });
    const on = await evaluateRecall({
      conversation: conversation!,
      threshold: 8000,
      elision: true,
    });
    expect(off.elisions).toBe(0);
    expect(on.elisions).toBeGreaterThan(0);
    expect(on.compactions).toBeLessThan(off.compactions);
    // Placeholders are what the view holds; the stored history and recall are unchanged.
    expect(on.historyTokens).toBe(off.historyTokens);
    expect(on.inFullHistory).toBe(1);
    expect(on.inViewPlusRecall).toBeGreaterThanOrEqual(on.inView);
    expect(on.recallAtK).toBe(off.recallAtK);
    expect(on.viewTokens).toBeLessThan(8000);
  });
});

describe('evaluateRecall with context windows', () => {
  it('finds an answer that sits beside the hit only when the hit comes with its context', async () => {
    let time = 1_700_000_000;
    const say = (author: string, text: string): NewEvent => ({
      id: `e${time}`,
      invocationId: `i${time}`,
      author,
      timestamp: time++,
      actions: {},
      content: { role: author === 'user' ? 'user' : 'model', parts: [{ text }] },
    });
    const filler = Array.from({ length: 40 }, (_, index) =>
      say(
        index % 2 === 0 ? 'user' : 'agent',
        `${'unrelated chatter about gardening '.repeat(12)}${index}`,
      ),
    );
    const conversation: RecallConversation = {
      name: 'beside the hit',
      events: [
        say('user', 'How did the appointment with the vet go for Biscuit?'),
        say('agent', 'It went well: the diagnosis was mild otitis, drops twice a day.'),
        ...filler,
      ],
      questions: [
        { question: 'What did the vet appointment for Biscuit conclude?', answers: ['otitis'] },
      ],
    };
    const bare = await evaluateRecall({ conversation, threshold: 600, contextEvents: 0 });
    const withContext = await evaluateRecall({ conversation, threshold: 600, contextEvents: 2 });
    expect(bare.compactions).toBeGreaterThan(0);
    expect(bare.inView).toBe(0);
    expect(bare.inViewPlusRecall).toBe(0);
    expect(withContext.inViewPlusRecall).toBe(1);
  });
});

describe('evaluateRecall in a given store', () => {
  it('measures evidence recall@5, @10 and MRR in SQLite as in memory, and deletes its session', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'orrery-recall-eval-'));
    const sqlite = new SqliteSessionService({ path: join(folder, 'eval.db') });
    try {
      const [conversation] = generateRecallConversations({ seed: 1, conversations: 1 });
      const memory = await evaluateRecall({ conversation: conversation!, threshold: 8000 });
      const stored = await evaluateRecall({
        conversation: conversation!,
        threshold: 8000,
        sessionService: sqlite,
        sessionId: 'eval-1',
      });
      expect(memory.questionsWithEvidence).toBeGreaterThan(0);
      expect(stored.questionsWithEvidence).toBe(memory.questionsWithEvidence);
      expect(stored.evidenceRecallAt5).toBe(memory.evidenceRecallAt5);
      expect(stored.evidenceRecallAt10).toBeGreaterThanOrEqual(stored.evidenceRecallAt5);
      expect(stored.mrr).toBeGreaterThan(0);
      expect(stored.mrr).toBeLessThanOrEqual(stored.evidenceRecallAt10);
      expect(stored.inViewPlusRecallAt10).toBeGreaterThanOrEqual(stored.inViewPlusRecall);
      expect(await sqlite.listSessions({ appName: 'eval', userId: 'eval' })).toHaveLength(0);
    } finally {
      await sqlite.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
