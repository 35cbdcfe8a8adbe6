import { describe, expect, it } from 'vitest';
import { generateRecallConversations } from '../testing/recall-conversations.js';
import { evaluateRecall } from './recall-eval.js';

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
