/**
 * Loads evaluation input for `orrery eval`: an eval file (`{ conversations: [...] }` or one
 * conversation: `{ name, events, questions }`), or a dataset's `probes.derived.jsonl` (questions
 * derived from real runs; each line names its transcript file, relative to the probes file, and
 * for multi-run files the run's index). Probe answers that are objects or lists count by their
 * identifier-like strings; "(metadata ...)" probes (not answerable from the transcript) are
 * left out.
 */
import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { importTranscripts } from '../importers/import-transcript.js';
import type { ImportResult } from '../importers/types.js';
import type { RecallConversation, RecallQuestion } from '../runtime/eval/recall-eval.js';
import { CliUsageError } from './errors.js';

interface Probe {
  source_file?: string;
  traj_index?: number;
  question?: string;
  answer?: unknown;
}

/** Strings of an answer worth looking for: at least 5 characters (short ones match by chance). */
function answerStrings(answer: unknown, out: string[] = []): string[] {
  if (typeof answer === 'string') {
    if (answer.length >= 5) out.push(answer);
  } else if (Array.isArray(answer)) {
    for (const item of answer) answerStrings(item, out);
  } else if (answer !== null && typeof answer === 'object') {
    for (const value of Object.values(answer)) answerStrings(value, out);
  }
  return [...new Set(out)];
}

function parseProbeLine(line: string, file: string, number: number): Probe {
  try {
    return JSON.parse(line) as Probe;
  } catch (error) {
    throw new CliUsageError({
      field: 'file',
      message: `${file}:${number}: not JSON (${(error as Error).message})`,
    });
  }
}

/** One conversation per transcript run the probes ask about. */
export async function loadProbes(file: string): Promise<RecallConversation[]> {
  const lines = (await readFile(file, 'utf8')).split('\n');
  const groups = new Map<string, { source: string; run?: number; questions: RecallQuestion[] }>();
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const probe = parseProbeLine(line, file, index + 1);
    if (!probe.source_file || !probe.question || probe.question.startsWith('(metadata')) return;
    const answers = answerStrings(probe.answer);
    if (answers.length === 0) return;
    const id = `${probe.source_file}#${probe.traj_index ?? 0}`;
    let group = groups.get(id);
    if (!group) {
      group = { source: probe.source_file, run: probe.traj_index, questions: [] };
      groups.set(id, group);
    }
    group.questions.push({ question: probe.question, answers });
  });
  const imported = new Map<string, ImportResult[]>();
  const conversations: RecallConversation[] = [];
  for (const [id, group] of groups) {
    let runs = imported.get(group.source);
    if (!runs) {
      const path = join(dirname(file), group.source);
      runs = importTranscripts({ text: await readFile(path), fileName: basename(path) });
      imported.set(group.source, runs);
    }
    const run = runs[group.run ?? 0] ?? (group.run === undefined ? runs[0] : undefined);
    if (!run) continue;
    conversations.push({ name: id, events: run.events, questions: group.questions });
  }
  return conversations;
}

/** An eval file: `{ conversations }` or one conversation. */
export async function loadEvalFile(file: string): Promise<RecallConversation[]> {
  if (file.endsWith('.jsonl')) return loadProbes(file);
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new CliUsageError({ field: 'file', message: `${file}: ${(error as Error).message}` });
  }
  const value = parsed as { conversations?: RecallConversation[] } & Partial<RecallConversation>;
  const conversations = value.conversations ?? (value.events ? [value as RecallConversation] : []);
  for (const [index, conversation] of conversations.entries()) {
    if (!Array.isArray(conversation.events) || !Array.isArray(conversation.questions)) {
      throw new CliUsageError({
        field: 'file',
        message: `${file}: conversations[${index}] needs 'events' and 'questions' arrays`,
      });
    }
    conversation.name ??= `${basename(file)}#${index}`;
  }
  return conversations;
}
