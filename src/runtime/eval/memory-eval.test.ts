import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../events/types.js';
import { combineMemoryEvaluations, evaluateMemory } from './memory-eval.js';
import type { RecallConversation } from './recall-eval.js';

let time = 1_700_000_000;
function say(text: string): NewEvent {
  return {
    id: `e${time}`,
    invocationId: `i${time}`,
    author: 'user',
    timestamp: time++,
    actions: {},
    content: { role: 'user', parts: [{ text }] },
  };
}

describe('evaluateMemory', () => {
  it('splits the conversation into sessions and asks searchMemory each question', async () => {
    const conversation: RecallConversation = {
      name: 'split',
      events: [
        say('my cat is called Pistachio'),
        say('nothing here'),
        say('the boiler was serviced in March'),
        say('more nothing'),
        say('the spare key is under the blue pot'),
        say('still nothing'),
      ],
      questions: [
        { question: 'where is the spare key', answers: ['blue pot'], evidenceSeqs: [5] },
        { question: 'what is my cat called', answers: ['Pistachio'] },
        { question: 'what colour is the car', answers: ['green'] },
      ],
    };
    const result = await evaluateMemory({ conversation, sessions: 3, topK: 1 });
    expect(result.sessions).toBe(3);
    // Two of three answers are in the sessions, and memory's top 1 holds both.
    expect(result.answers).toBe(3);
    expect(result.inAllSessions).toBeCloseTo(2 / 3);
    expect(result.inMemory).toBeCloseTo(2 / 3);
    // Evidence: position 5 is the third session's first event; the cat by its answer text.
    expect(result.recallAtK).toBe(1);
    expect(combineMemoryEvaluations([result, result]).inMemory).toBeCloseTo(2 / 3);
  });
});
