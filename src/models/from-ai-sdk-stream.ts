/**
 * An AI SDK v3 `doStream` stream back to orrery's `ModelStreamPart`s: text and reasoning deltas
 * as they arrive, complete tool calls, and a last `finish` part whose response is built by
 * `fromAiSdkResult` from the accumulated content, so it equals what `doGenerate` would give.
 */
import type {
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
  SharedV3ProviderMetadata,
} from '@ai-sdk/provider';
import { raceAbort } from '../util/abort.js';
import { ModelError } from './errors.js';
import { fromAiSdkContent, fromAiSdkResult } from './from-ai-sdk-result.js';
import type { ModelStreamPart } from './types.js';

type Block = Extract<LanguageModelV3Content, { type: 'text' | 'reasoning' }>;

/** The content of a stream so far, in the order its blocks started. */
class StreamContent {
  readonly content: LanguageModelV3Content[] = [];
  private readonly open = new Map<string, Block>();

  /** The text or reasoning block `id` (started on first sight when its `*-start` is missing). */
  block(type: Block['type'], id: string, metadata?: SharedV3ProviderMetadata): Block {
    const key = `${type}:${id}`;
    let block = this.open.get(key);
    if (block === undefined) {
      const created: Block = { type, text: '' };
      this.open.set(key, created);
      this.content.push(created);
      block = created;
    }
    block.providerMetadata = mergeMetadata(block.providerMetadata, metadata);
    return block;
  }

  end(type: Block['type'], id: string, metadata?: SharedV3ProviderMetadata): void {
    this.block(type, id, metadata);
    // An id may be reused by a later block (some providers number them per message).
    this.open.delete(`${type}:${id}`);
  }
}

/** Signatures arrive on any of start, delta or end (Anthropic's on an empty reasoning delta). */
function mergeMetadata(
  current: SharedV3ProviderMetadata | undefined,
  next: SharedV3ProviderMetadata | undefined,
): SharedV3ProviderMetadata | undefined {
  if (next === undefined) return current;
  const merged: SharedV3ProviderMetadata = { ...current };
  for (const [namespace, values] of Object.entries(next)) {
    merged[namespace] = { ...merged[namespace], ...values };
  }
  return merged;
}

export async function* fromAiSdkStream(
  stream: ReadableStream<LanguageModelV3StreamPart>,
  options: { modelId?: string; signal?: AbortSignal } = {},
): AsyncGenerator<ModelStreamPart, void, undefined> {
  const { modelId, signal } = options;
  const accumulated = new StreamContent();
  let finish:
    | { usage: LanguageModelV3Usage; finishReason: LanguageModelV3FinishReason }
    | undefined;
  let metadata: { id?: string; modelId?: string } | undefined;
  const reader = stream.getReader();
  let done = false;
  try {
    while (true) {
      const next = await raceAbort(reader.read(), signal);
      if (next.done) {
        done = true;
        break;
      }
      const part = next.value;
      switch (part.type) {
        case 'text-start':
        case 'reasoning-start': {
          accumulated.block(
            part.type === 'text-start' ? 'text' : 'reasoning',
            part.id,
            part.providerMetadata,
          );
          break;
        }
        case 'text-delta':
        case 'reasoning-delta': {
          const type = part.type === 'text-delta' ? 'text' : 'reasoning';
          const block = accumulated.block(type, part.id, part.providerMetadata);
          block.text += part.delta;
          if (part.delta !== '') yield { type: part.type, text: part.delta };
          break;
        }
        case 'text-end':
        case 'reasoning-end':
          accumulated.end(
            part.type === 'text-end' ? 'text' : 'reasoning',
            part.id,
            part.providerMetadata,
          );
          break;
        case 'tool-call':
        case 'file': {
          accumulated.content.push(part);
          const converted = fromAiSdkContent(part, { modelId });
          if (converted?.functionCall) {
            yield { type: 'tool-call', functionCall: converted.functionCall };
          }
          break;
        }
        case 'finish':
          finish = { usage: part.usage, finishReason: part.finishReason };
          break;
        case 'response-metadata':
          metadata = { id: part.id, modelId: part.modelId };
          break;
        case 'error':
          throw part.error;
        default:
          // Tool input deltas (the call comes whole as `tool-call`), sources, metadata, raw chunks.
          break;
      }
    }
  } finally {
    // The caller stopped early or a part failed: let the provider close the connection.
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
  if (finish === undefined) {
    throw new ModelError({
      kind: 'retryable',
      message: `${modelId === undefined ? '' : `${modelId}: `}the stream ended without a finish part (connection cut?)`,
      modelId,
    });
  }
  yield {
    type: 'finish',
    response: fromAiSdkResult(
      { content: accumulated.content, ...finish, warnings: [], response: metadata },
      { modelId },
    ),
  };
}
