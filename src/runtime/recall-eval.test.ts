import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../events/types.js';
import { generateRecallConversations } from '../testing/recall-conversations.js';
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
