/**
 * Memory across sessions, measured (`orrery eval --memory`): each conversation is split into
 * sessions of one user (equal runs of events, in order), stored, and each question is asked of
 * `SessionMemoryService.searchMemory` as a later session would. Measured: the share of answer
 * strings in the top k memories' text, and evidence recall@k (the evidence event, found by its
 * session and seq, among the top k).
 */
import type { Event } from '../../events/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { SessionMemoryService } from '../../sessions/session-memory-service.js';
import type { SessionService } from '../../sessions/session-service.js';
import { renderEvent } from '../../summarizers/render.js';
import type { RecallConversation } from './recall-eval.js';

export interface EvaluateMemoryOptions {
  conversation: RecallConversation;
  /** Sessions the conversation is split into (default 4). */
  sessions?: number;
  /** Memories counted, and k of recall@k (default 5). */
  topK?: number;
  /** Where the sessions are stored (default a fresh in-memory store). */
  sessionService?: SessionService;
  signal?: AbortSignal;
}

/** Shares are 0..1. */
export interface MemoryEvaluation {
  name: string;
  sessions: number;
  questions: number;
  answers: number;
  /** Answer strings found in the top k memories' text, over answer strings asked. */
  inMemory: number;
  /** Answer strings found anywhere in the stored sessions (the ceiling of `inMemory`). */
  inAllSessions: number;
  /** Questions with evidence whose evidence was among the top k memories, over those questions. */
  recallAtK: number;
  topK: number;
}

function textOf(event: Pick<Event, 'content'>): string {
  const rendered = renderEvent({
    event: { ...event, seq: 0, id: '', invocationId: '', author: '', timestamp: 0, actions: {} },
    maxItemChars: Number.MAX_SAFE_INTEGER,
  });
  return (rendered ?? '').toLowerCase();
}

function share(found: number, total: number): number {
  return total === 0 ? 0 : found / total;
}

export async function evaluateMemory(options: EvaluateMemoryOptions): Promise<MemoryEvaluation> {
  const { conversation, signal } = options;
  const sessions = options.sessions ?? 4;
  const topK = options.topK ?? 5;
  const sessionService = options.sessionService ?? new InMemorySessionService();
  const appName = 'eval-memory';
  const userId = 'eval';
  const size = Math.max(1, Math.ceil(conversation.events.length / sessions));
  // Where each replayed event (1-based position) was stored.
  const stored: Array<{ sessionId: string; seq: number; text: string }> = [];
  for (let index = 0; index * size < conversation.events.length; index++) {
    const sessionId = `part-${index + 1}`;
    await sessionService.createSession({ appName, userId, sessionId, signal });
    for (const event of conversation.events.slice(index * size, (index + 1) * size)) {
      const appended = await sessionService.appendEvent({
        appName,
        userId,
        sessionId,
        event,
        signal,
      });
      stored.push({ sessionId, seq: appended.seq, text: textOf(appended) });
    }
  }
  const memory = new SessionMemoryService({ sessionService });
  const allText = stored.map((entry) => entry.text).join('\n');
  let answers = 0;
  let inMemory = 0;
  let inAllSessions = 0;
  let withEvidence = 0;
  let evidenceFound = 0;
  for (const question of conversation.questions) {
    const { memories } = await memory.searchMemory({
      appName,
      userId,
      query: question.question,
      limit: topK,
      signal,
    });
    const memoryText = memories.map((entry) => textOf(entry)).join('\n');
    for (const answer of question.answers) {
      const needle = answer.toLowerCase();
      answers++;
      if (memoryText.includes(needle)) inMemory++;
      if (allText.includes(needle)) inAllSessions++;
    }
    const evidence = new Set(
      (
        question.evidenceSeqs?.map((position) => stored[position - 1]) ??
        stored.filter((entry) =>
          question.answers.some((answer) => entry.text.includes(answer.toLowerCase())),
        )
      )
        .filter((entry) => entry !== undefined)
        .map((entry) => `${entry.sessionId}/${entry.seq}`),
    );
    if (evidence.size === 0) continue;
    withEvidence++;
    if (memories.some((entry) => evidence.has(`${entry.sessionId}/${entry.seq}`))) evidenceFound++;
  }
  return {
    name: conversation.name,
    sessions: Math.ceil(conversation.events.length / size),
    questions: conversation.questions.length,
    answers,
    inMemory: share(inMemory, answers),
    inAllSessions: share(inAllSessions, answers),
    recallAtK: share(evidenceFound, withEvidence),
    topK,
  };
}

/** Answer-weighted means (recall@k weighted by questions). */
export function combineMemoryEvaluations(
  results: MemoryEvaluation[],
): Omit<MemoryEvaluation, 'name'> {
  const answers = results.reduce((sum, result) => sum + result.answers, 0);
  const questions = results.reduce((sum, result) => sum + result.questions, 0);
  const weighted = (field: 'inMemory' | 'inAllSessions') =>
    share(
      results.reduce((sum, result) => sum + result[field] * result.answers, 0),
      answers,
    );
  return {
    sessions: results.reduce((sum, result) => sum + result.sessions, 0),
    questions,
    answers,
    inMemory: weighted('inMemory'),
    inAllSessions: weighted('inAllSessions'),
    recallAtK: share(
      results.reduce((sum, result) => sum + result.recallAtK * result.questions, 0),
      questions,
    ),
    topK: results[0]?.topK ?? 5,
  };
}
