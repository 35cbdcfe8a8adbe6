/**
 * A long, tool-heavy agent transcript of any length, for replay benchmarks and golden tests:
 * invocations of a user question, one to four model steps that call tools (sometimes two in
 * parallel) with bulky results, and a final answer. Deterministic: a seeded generator, fixed
 * ids and a fixed clock, so the same options give the same events. A few calls never get a
 * result (a crash mid-tool), as real transcripts have, so the view's repairs are exercised.
 */
import type { NewEvent, Part } from '../events/types.js';

export interface LongTranscriptOptions {
  /** Events to produce (the last invocation is cut short to hit it exactly). */
  events: number;
  /** Seed of the generator: the same seed gives the same transcript. Default 1. */
  seed?: number;
  /** Agent name on model events. Default `agent`. */
  agentName?: string;
}

/** mulberry32: small, seeded, good enough for plausible sizes. */
function seededRandom(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const TOOLS = ['read_file', 'run_tests', 'grep', 'kubectl_logs', 'sql_query'] as const;
const WORDS = [
  'checkout',
  'latency',
  'pod',
  'timeout',
  'retry',
  'cache',
  'index',
  'replica',
  'deploy',
  'p99',
  'error',
  'queue',
  'shard',
  'lock',
  'handler',
];

/** Builds the transcript's events, in order. */
export function longTranscript(options: LongTranscriptOptions): NewEvent[] {
  const random = seededRandom(options.seed ?? 1);
  const agent = options.agentName ?? 'agent';
  const between = (low: number, high: number) => Math.floor(low + random() * (high - low + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const sentence = (words: number) => Array.from({ length: words }, () => pick(WORDS)).join(' ');
  const events: NewEvent[] = [];
  let time = 1_750_000_000;
  let callNumber = 0;
  let invocation = 0;
  const push = (event: Omit<NewEvent, 'id' | 'timestamp' | 'actions'>) => {
    if (events.length >= options.events) return;
    time += between(1, 20);
    events.push({ ...event, id: `evt-${events.length + 1}`, timestamp: time, actions: {} });
  };
  const toolOutput = (tool: string): Record<string, unknown> => {
    const lines = between(3, 60);
    const rows = Array.from(
      { length: lines },
      (_, row) => `${row + 1}: ${tool} ${sentence(between(4, 14))} ${between(0, 99_999)}ms`,
    );
    return { result: rows.join('\n'), exitCode: random() < 0.9 ? 0 : 1 };
  };

  while (events.length < options.events) {
    invocation++;
    const invocationId = `inv-${invocation}`;
    push({
      author: 'user',
      invocationId,
      content: { role: 'user', parts: [{ text: `Why is ${sentence(between(3, 12))}?` }] },
    });
    const steps = between(1, 4);
    for (let step = 0; step < steps; step++) {
      const calls = Array.from({ length: random() < 0.2 ? 2 : 1 }, () => {
        callNumber++;
        const name = pick(TOOLS);
        return { id: `call-${callNumber}`, name, args: { query: sentence(between(1, 5)) } };
      });
      const thought: Part[] = random() < 0.5 ? [{ text: sentence(between(5, 30)) }] : [];
      push({
        author: agent,
        invocationId,
        content: {
          role: 'model',
          parts: [...thought, ...calls.map((call) => ({ functionCall: call }))],
        },
        usageMetadata: { promptTokenCount: between(1_000, 90_000), candidatesTokenCount: 40 },
      });
      // About one call in a hundred never returns.
      const answered = calls.filter(() => random() >= 0.01);
      if (answered.length === 0) continue;
      push({
        author: agent,
        invocationId,
        content: {
          role: 'user',
          parts: answered.map((call) => ({
            functionResponse: { id: call.id, name: call.name, response: toolOutput(call.name) },
          })),
        },
      });
    }
    push({
      author: agent,
      invocationId,
      content: { role: 'model', parts: [{ text: `Found it: ${sentence(between(10, 60))}.` }] },
      usageMetadata: { promptTokenCount: between(1_000, 90_000), candidatesTokenCount: 80 },
    });
  }
  return events;
}
