/**
 * Seeded long conversations with planted facts, for measuring what survives compaction
 * (`evaluateRecall`, `orrery eval --generate`). Each conversation is a coding-agent session:
 * turns of a user request, a tool call, a bulky tool output and an answer. Facts (a code, a
 * number, a name) are planted in user messages and in the middle of tool outputs; each comes
 * with a question, its answer string and the position of the event that holds it. The same seed
 * gives the same conversations.
 */
import type { NewEvent } from '../events/types.js';
import type { RecallConversation, RecallQuestion } from '../runtime/eval/recall-eval.js';
import {
  functionCallEvent,
  functionResponseEvent,
  modelTextEvent,
  userTextEvent,
} from './event-builders.js';

export interface GenerateRecallConversationsOptions {
  seed: number;
  /** Default 3. */
  conversations?: number;
  /** Turns per conversation (4 events each); default 60. */
  turns?: number;
  /** Facts planted per conversation; default 12. */
  facts?: number;
  /** Characters of each tool output; default 3000. */
  toolOutputChars?: number;
}

/** mulberry32: small, fast, good enough for test data. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const PROJECTS = ['orchid', 'basalt', 'heron', 'quartz', 'juniper', 'falcon', 'maple', 'cobalt'];
const SUBJECTS = [
  { attribute: 'deploy token prefix', make: (pick: Picker) => `TK-${pick.digits(5)}` },
  { attribute: 'staging port', make: (pick: Picker) => pick.digits(4, 2) },
  {
    attribute: 'on-call engineer',
    make: (pick: Picker) =>
      pick.of([
        'Priya Raman',
        'Tomasz Wolak',
        'Ana Souza',
        'Kenji Mori',
        'Lea Dubois',
        'Omar Haddad',
      ]),
  },
  {
    attribute: 'database replica region',
    make: (pick: Picker) =>
      pick.of(['eu-north-1', 'ap-southeast-2', 'us-east-2', 'sa-east-1', 'ca-central-1']),
  },
  {
    attribute: 'release codename',
    make: (pick: Picker) =>
      `${pick.of(['amber', 'slate', 'indigo', 'ochre'])}-${pick.of(['lynx', 'otter', 'wren', 'ibis'])}`,
  },
  { attribute: 'incident ticket', make: (pick: Picker) => `INC-${pick.digits(4)}` },
  { attribute: 'cache size limit in megabytes', make: (pick: Picker) => pick.digits(3, 1) },
  {
    attribute: 'feature flag',
    make: (pick: Picker) =>
      `ff_${pick.of(['fast', 'new', 'beta'])}_${pick.of(['checkout', 'search', 'export'])}_${pick.digits(2)}`,
  },
];
const FILLER_WORDS =
  'the build step reads config module value cache request handler returns list item index update path file test case output line parser token stream buffer client server retry timeout queue worker batch record field schema'.split(
    ' ',
  );
const TOOLS = ['read_file', 'run_tests', 'grep', 'list_dir', 'run_command'];

interface Picker {
  of<T>(list: readonly T[]): T;
  digits(count: number, firstMin?: number): string;
  words(count: number): string;
}

function picker(next: () => number): Picker {
  return {
    of: (list) => list[Math.floor(next() * list.length)]!,
    digits: (count, firstMin = 1) => {
      let text = String(firstMin + Math.floor(next() * (10 - firstMin)));
      for (let index = 1; index < count; index++) text += String(Math.floor(next() * 10));
      return text;
    },
    words: (count) =>
      Array.from(
        { length: count },
        () => FILLER_WORDS[Math.floor(next() * FILLER_WORDS.length)]!,
      ).join(' '),
  };
}

/** Lines of plausible tool output, about `chars` long. */
function toolOutput(pick: Picker, chars: number): string[] {
  const lines: string[] = [];
  let size = 0;
  while (size < chars) {
    const line = `${pick.of(['src', 'lib', 'test'])}/${pick.words(1)}_${pick.digits(2)}.ts: ${pick.words(8)}`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines;
}

function conversation(
  options: Required<GenerateRecallConversationsOptions>,
  index: number,
): RecallConversation {
  const next = random(options.seed * 1000 + index);
  const pick = picker(next);
  const events: NewEvent[] = [];
  let time = 1_700_000_000 + index * 100_000;
  const fields = (invocationId: string) => {
    time += 1;
    return { id: `event-${index}-${events.length}-${time}`, invocationId, timestamp: time };
  };
  // Facts go into turns spread over the first 80% (the end stays in the view anyway).
  const factTurns = new Map<number, number>();
  for (let fact = 0; fact < options.facts; fact++) {
    let turn = Math.floor(next() * Math.floor(options.turns * 0.8));
    while (factTurns.has(turn)) turn = (turn + 1) % options.turns;
    factTurns.set(turn, fact);
  }
  const questions: RecallQuestion[] = [];
  const used = new Set<string>();
  for (let turn = 0; turn < options.turns; turn++) {
    const invocationId = `inv-${index}-${turn}`;
    const tool = pick.of(TOOLS);
    const callId = `call-${index}-${turn}`;
    const fact = factTurns.get(turn);
    let userText = `Please ${pick.of(['check', 'fix', 'update', 'review'])} the ${pick.words(3)}.`;
    const output = toolOutput(pick, options.toolOutputChars);
    let factSeq: number | undefined;
    if (fact !== undefined) {
      let project = pick.of(PROJECTS);
      let subject = pick.of(SUBJECTS);
      while (used.has(`${project}/${subject.attribute}`)) {
        project = pick.of(PROJECTS);
        subject = pick.of(SUBJECTS);
      }
      used.add(`${project}/${subject.attribute}`);
      const value = subject.make(pick);
      const statement = `The ${subject.attribute} for project ${project} is ${value}.`;
      const inUserMessage = fact % 2 === 0;
      if (inUserMessage) userText = `${userText} By the way: ${statement}`;
      else output.splice(Math.floor(output.length / 2), 0, `NOTE ${statement}`);
      factSeq = events.length + (inUserMessage ? 1 : 3);
      questions.push({
        question: `What is the ${subject.attribute} for project ${project}?`,
        answers: [value],
        evidenceSeqs: [factSeq],
      });
    }
    events.push(
      userTextEvent({ ...fields(invocationId), text: userText }),
      functionCallEvent({
        ...fields(invocationId),
        calls: [{ id: callId, name: tool, args: { path: `src/${pick.words(1)}.ts` } }],
      }),
      functionResponseEvent({
        ...fields(invocationId),
        responses: [{ id: callId, name: tool, response: { output: output.join('\n') } }],
      }),
      modelTextEvent({ ...fields(invocationId), text: `Done: ${pick.words(6)}.` }),
    );
  }
  return { name: `generated-${options.seed}-${index}`, events, questions };
}

/** `conversations` seeded conversations with planted facts and their questions. */
export function generateRecallConversations(
  options: GenerateRecallConversationsOptions,
): RecallConversation[] {
  const resolved: Required<GenerateRecallConversationsOptions> = {
    seed: options.seed,
    conversations: options.conversations ?? 3,
    turns: options.turns ?? 60,
    facts: options.facts ?? 12,
    toolOutputChars: options.toolOutputChars ?? 3000,
  };
  return Array.from({ length: resolved.conversations }, (_, index) =>
    conversation(resolved, index),
  );
}
