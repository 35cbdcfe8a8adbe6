import { describe, expect, it } from 'vitest';
import { getText } from '../events/event-helpers.js';
import { combineEvaluations, evaluateRecall } from '../runtime/eval/recall-eval.js';
import { generateRecallConversations } from './recall-conversations.js';

describe('generated recall conversations', () => {
  it('are the same for the same seed and plant each fact where its evidence says', () => {
    const [first] = generateRecallConversations({ seed: 7, conversations: 1, turns: 20, facts: 4 });
    const [again] = generateRecallConversations({ seed: 7, conversations: 1, turns: 20, facts: 4 });
    expect(again).toEqual(first);
    expect(first?.events).toHaveLength(80);
    expect(first?.questions).toHaveLength(4);
    for (const question of first!.questions) {
      const evidence = first!.events[question.evidenceSeqs![0]! - 1]!;
      expect(JSON.stringify(evidence.content)).toContain(question.answers[0]);
      expect(getText(evidence) + JSON.stringify(evidence.content)).toMatch(/for project \w+ is/);
    }
    const [other] = generateRecallConversations({ seed: 8, conversations: 1, turns: 20, facts: 4 });
    expect(other?.questions).not.toEqual(first?.questions);
  });
});

describe('evaluateRecall', () => {
  it('measures view, view + recall, truncation and the full history on a compacted conversation', async () => {
    const conversations = generateRecallConversations({
      seed: 1,
      conversations: 2,
    });
    const results = await Promise.all(
      conversations.map((conversation) => evaluateRecall({ conversation, threshold: 8000 })),
    );
    for (const result of results) {
      expect(result.compactions).toBeGreaterThan(0);
      expect(result.viewTokens).toBeLessThan(result.historyTokens);
      expect(result.inFullHistory).toBe(1);
      expect(result.inViewPlusRecall).toBeGreaterThanOrEqual(result.inView);
      expect(result.inView).toBeLessThan(1);
    }
    const total = combineEvaluations(results);
    expect(total.answers).toBe(24);
    // Recall brings back facts the summary dropped: strictly more answers than the view alone.
    expect(total.inViewPlusRecall).toBeGreaterThan(total.inView);
    expect(total.recallAtK).toBeGreaterThan(0);
  });

  it('finds the evidence events by their stored seq, whatever compactions were stored between', async () => {
    const [conversation] = generateRecallConversations({ seed: 1, conversations: 1 });
    const loose = await evaluateRecall({ conversation: conversation!, threshold: 8000 });
    const tight = await evaluateRecall({ conversation: conversation!, threshold: 2000 });
    expect(tight.compactions).toBeGreaterThan(loose.compactions);
    // recall@k searches the whole history: how often it compacted changes nothing.
    expect(tight.recallAtK).toBe(loose.recallAtK);
  });
});
