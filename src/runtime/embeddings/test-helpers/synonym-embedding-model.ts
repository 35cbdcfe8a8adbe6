/**
 * A deterministic embedding model for tests: a bag of concepts. Words of one synonym group
 * share a dimension, every other word hashes to its own, stop words count for nothing. So a
 * paraphrase built from synonyms is close to its original although no word is shared.
 */
import type { EmbeddingModelV3 } from '@ai-sdk/provider';
import { MockEmbeddingModelV3 } from 'ai/test';
import { tokenizeSearchText } from '../../../sessions/search-text.js';

export const SYNONYM_GROUPS: readonly string[][] = [
  ['staging', 'preprod', 'preproduction'],
  ['gateway', 'proxy', 'ingress'],
  ['listens', 'bind', 'binds', 'bound'],
  ['port', 'socket'],
  ['database', 'postgres', 'db'],
  ['password', 'credential', 'secret'],
  ['rotated', 'changed', 'replaced'],
  ['error', 'err', 'failure', 'fault'],
];

const STOP_WORDS = new Set(
  'a an and are as at be by did do does for from in is it of on or our the to was we what which with'.split(
    ' ',
  ),
);

const DIMENSIONS = 257;

function dimensionOf(word: string): number {
  const group = SYNONYM_GROUPS.findIndex((words) => words.includes(word));
  if (group >= 0) return group;
  let hash = 2166136261;
  for (const character of word) hash = Math.imul(hash ^ (character.codePointAt(0) ?? 0), 16777619);
  return SYNONYM_GROUPS.length + ((hash >>> 0) % (DIMENSIONS - SYNONYM_GROUPS.length));
}

/** The fake model's vector of `text` (not normalized). */
export function synonymVector(text: string): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0);
  for (const word of tokenizeSearchText(text)) {
    if (STOP_WORDS.has(word)) continue;
    const dimension = dimensionOf(word);
    vector[dimension] = (vector[dimension] ?? 0) + 1;
  }
  return vector;
}

/** Cosine similarity of two texts under the fake model. */
export function synonymSimilarity(a: string, b: string): number {
  const x = synonymVector(a);
  const y = synonymVector(b);
  let dot = 0;
  let xx = 0;
  let yy = 0;
  x.forEach((value, index) => {
    const other = y[index] ?? 0;
    dot += value * other;
    xx += value * value;
    yy += other * other;
  });
  return dot / Math.sqrt(xx * yy);
}

/** How the fake model answers a call instead of embedding: throw to play a provider error. */
export type EmbeddingFailure = (
  values: string[],
  signal: AbortSignal | undefined,
) => Promise<never>;

export interface SynonymEmbeddingModel extends EmbeddingModelV3 {
  /** Every `doEmbed` call's options, in order (from `MockEmbeddingModelV3`). */
  doEmbedCalls: Array<{ values: string[]; abortSignal?: AbortSignal }>;
  /** From now on every call fails this way; `undefined`: embed again. */
  failWith(failure: EmbeddingFailure | undefined): void;
}

/** The fake model. */
export function synonymEmbeddingModel(
  options: { maxEmbeddingsPerCall?: number } = {},
): SynonymEmbeddingModel {
  let failure: EmbeddingFailure | undefined;
  const model = new MockEmbeddingModelV3({
    provider: 'test.embedding',
    modelId: 'synonyms',
    maxEmbeddingsPerCall: options.maxEmbeddingsPerCall ?? 100,
    doEmbed: async ({ values, abortSignal }) => {
      if (failure) return failure(values, abortSignal);
      return { embeddings: values.map(synonymVector), warnings: [] };
    },
  });
  return Object.assign(model, {
    failWith(next: EmbeddingFailure | undefined) {
      failure = next;
    },
  });
}

/** Every text the model embedded, in order, leaving out the queries given. */
export function embeddedTexts(model: SynonymEmbeddingModel, queries: readonly string[] = []) {
  return model.doEmbedCalls
    .flatMap((call) => call.values)
    .filter((text) => !queries.includes(text));
}
