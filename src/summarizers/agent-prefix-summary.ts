/**
 * A summary that reuses the agent's cached prompt prefix (docs/cost.md#summaries-that-reuse-the-agents-cache):
 * the agent's last request exactly as sent (system instruction, tools, contents, cache key), the
 * contents of the events after it, and one more user message asking for the rolling summary of
 * the range being compacted. The provider bills the repeated prefix as a cache read (Anthropic
 * 0.1x) instead of a standalone summarizer reading the range uncached. Tools stay declared, as
 * sent (changing tools or tool choice invalidates Anthropic's cache): the instruction asks for
 * text only, and an answer that calls a tool is refused like an empty or blocked one. Every
 * refusal is a `reason`, never an exception: the caller falls back to the standalone summarizer.
 */
import { estimateContentListTokens, estimateTextTokens } from '../compaction/token-estimate.js';
import type { Summary } from '../compaction/types.js';
import { getText } from '../events/event-helpers.js';
import type { Content, Event } from '../events/types.js';
import { isContextOverflowError } from '../models/errors.js';
import type { Model, ModelRequest, ModelResponse } from '../models/types.js';
import { raceAbort } from '../util/abort.js';
import { SUMMARY_SECTIONS } from './default-prompt.js';
import { fallbackReason } from './fallback-reason.js';
import { isBlockedFinishReason } from './llm-event-summarizer.js';
import { labelSummaryLines } from './seq-labels.js';

/** Why the agent's prefix was not used: the code first, then details. */
export type AgentPrefixReason =
  | 'view_changed'
  | 'open_calls'
  | 'too_long'
  | 'tool_call'
  | 'empty'
  | 'blocked'
  | 'timeout'
  | 'model_error';

/** The seq range one message of the request holds (`undefined`: none, e.g. a repair). */
export interface MessageSeqs {
  fromSeq: number;
  toSeq: number;
}

export interface AgentPrefixSummaryOptions {
  /** The model that answered `request`: the summarizer's model. */
  model: Model;
  /** The agent's last request, as sent (without its signal). */
  request: Omit<ModelRequest, 'signal'>;
  /**
   * The contents the agent's next request would hold now (the view): they must start with
   * `request.contents`, the rest are the newer events.
   */
  viewContents: readonly Content[];
  /** Each message of `viewContents` and its seq range; a list of another length is not used. */
  messageSeqs?: readonly MessageSeqs[];
  /** The range the new (rolling) summary covers, as stored on the compaction. */
  fromSeq: number;
  toSeq: number;
  /** The first message holds the previous summary (`SUMMARY_PREFIX`). */
  rolling: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
}

export type AgentPrefixResult =
  | { summary: Summary; request: ModelRequest }
  | { reason: AgentPrefixReason; detail: string };

/** `a` and `b` as JSON: contents are plain JSON (the event validator sees to it). */
function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The contents after `sent` in `view`, or `undefined` when `sent` is not where `view` starts
 * (a compaction, an elision rule, a ceiling or a plugin changed the prefix since). A last message
 * the view extended (the same role, more parts) continues as a message of its own: the provider
 * merges it, and the sent contents stay as they were.
 */
export function contentsAfter(
  sent: readonly Content[],
  view: readonly Content[],
): Content[] | undefined {
  if (sent.length === 0 || view.length < sent.length) return undefined;
  const last = sent.length - 1;
  for (let index = 0; index < last; index++) {
    if (!sameJson(sent[index], view[index])) return undefined;
  }
  const sentLast = sent[last]!;
  const viewLast = view[last]!;
  if (sentLast.role !== viewLast.role || viewLast.parts.length < sentLast.parts.length) {
    return undefined;
  }
  if (!sameJson(sentLast.parts, viewLast.parts.slice(0, sentLast.parts.length))) return undefined;
  const rest = view.slice(sent.length);
  const extra = viewLast.parts.slice(sentLast.parts.length);
  return extra.length > 0 ? [{ role: viewLast.role, parts: extra }, ...rest] : rest;
}

/** Call ids without a response in `contents`: a provider rejects a request that holds one. */
function openCalls(contents: readonly Content[]): string[] {
  const open = new Set<string>();
  for (const content of contents) {
    for (const part of content.parts) {
      if (part.functionCall) open.add(part.functionCall.id);
      if (part.functionResponse) open.delete(part.functionResponse.id);
    }
  }
  return [...open];
}

function seqText(range: MessageSeqs): string {
  return range.fromSeq === range.toSeq ? `${range.toSeq}` : `${range.fromSeq}-${range.toSeq}`;
}

/** The last user message: what to summarize, the seq of each message, the rules and sections. */
export function agentPrefixInstruction(options: {
  fromSeq: number;
  toSeq: number;
  rolling: boolean;
  messageSeqs?: readonly MessageSeqs[];
}): string {
  const { fromSeq, toSeq, rolling, messageSeqs } = options;
  const covered = messageSeqs?.filter((range) => range.fromSeq <= toSeq).length ?? 0;
  const map = messageSeqs?.map((range, index) => `${index + 1}: ${seqText(range)}`).join(', ');
  const lines = [
    '<compaction_request>',
    'This message comes from the runtime, not from the user. Do not call any tool and do not continue the task: answer with the summary text only.',
    '',
    `Write the running summary of this conversation from seq ${fromSeq} through seq ${toSeq}${covered > 0 ? ` (messages 1-${covered})` : ''}. It replaces those events in every later request: the agent will continue from your summary and the events after seq ${toSeq} alone, so anything you leave out is lost to it. Do not summarize the events after seq ${toSeq}: they stay as they are.`,
  ];
  if (rolling) {
    lines.push(
      'The first message is the summary so far: fold it in, keep everything from it that is still true, update what changed, mark finished tasks as done.',
    );
  }
  if (map) lines.push('', `The seq of each message (message: seq): ${map}.`);
  lines.push(
    '',
    'Rules:',
    '- Copy identifiers exactly: ids, ticket numbers, file paths, URLs, commands, numbers, versions, names, dates. Never round, paraphrase or invent them.',
    '- Name tools by their exact names as called.',
    "- Quote the user's goal and the user's latest request VERBATIM.",
    "- Write the summary in the conversation's language; never translate quotes or identifiers.",
    "- Be dense and factual. Leave out pleasantries and the agent's reasoning.",
    `- End EVERY line of the summary (each fact, decision, error, tool result and task) with the seq it comes from, e.g. (seq 12) or (seq 12-15)${map ? ', from the list above' : ''}: the agent can read those events back verbatim with its recall tool.`,
    '',
    SUMMARY_SECTIONS,
    '</compaction_request>',
    '',
    'Write the summary now, starting with "## User goal".',
  );
  return lines.join('\n');
}

/**
 * The request's estimated size, for the window check: contents, instruction and tools' JSON by
 * the core's estimates (the guard's `estimateRequestOverhead` is the runtime's, a layer above;
 * it differs by a few tokens of message framing, nothing a window check turns on).
 */
function requestTokens(request: ModelRequest): number {
  let tokens = estimateContentListTokens(request.contents);
  if (request.systemInstruction) tokens += estimateTextTokens(request.systemInstruction);
  if (request.tools) tokens += estimateTextTokens(JSON.stringify(request.tools));
  return tokens;
}

/** One call on the agent's prefix; a refusal is a reason, never an exception (aborts excepted). */
export async function summarizeWithAgentPrefix(
  options: AgentPrefixSummaryOptions,
): Promise<AgentPrefixResult> {
  const { model, request: sent, fromSeq, toSeq, rolling, signal } = options;
  signal?.throwIfAborted();
  const newer = contentsAfter(sent.contents, options.viewContents);
  if (!newer) {
    return {
      reason: 'view_changed',
      detail: "the agent's last request is not where the current view starts",
    };
  }
  const all = [...sent.contents, ...newer];
  const open = openCalls(all);
  if (open.length > 0) {
    return { reason: 'open_calls', detail: `calls without a response: ${open.join(', ')}` };
  }
  const messageSeqs =
    options.messageSeqs?.length === options.viewContents.length ? options.messageSeqs : undefined;
  const instruction = agentPrefixInstruction({ fromSeq, toSeq, rolling, messageSeqs });
  const request: ModelRequest = {
    ...sent,
    contents: [...all, { role: 'user', parts: [{ text: instruction }] }],
  };
  const window = model.contextWindowTokens;
  const tokens = requestTokens(request);
  if (window !== undefined && tokens > window) {
    return { reason: 'too_long', detail: `~${tokens} tokens over the ${window}-token window` };
  }
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let response: ModelResponse;
  try {
    response = await raceAbort(model.generate({ ...request, signal: combined }), combined);
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (timeout.aborted) {
      return { reason: 'timeout', detail: `no answer within ${options.timeoutMs} ms` };
    }
    // Recorded on the compaction: credentials masked, as a fallback's reason is.
    if (isContextOverflowError(error)) return { reason: 'too_long', detail: fallbackReason(error) };
    return { reason: 'model_error', detail: fallbackReason(error) };
  }
  const calls = response.content.parts.filter((part) => part.functionCall);
  if (calls.length > 0) {
    const names = calls.map((part) => part.functionCall?.name).join(', ');
    return { reason: 'tool_call', detail: `the answer called ${names}` };
  }
  if (isBlockedFinishReason(response.finishReason)) {
    return { reason: 'blocked', detail: `finishReason=${response.finishReason}` };
  }
  const text = getText(response.content).trim();
  if (text === '') {
    return { reason: 'empty', detail: `finishReason=${response.finishReason ?? 'none'}` };
  }
  const labelled = labelSummaryLines({ text, fromSeq, toSeq });
  const summary: Summary = {
    content: { role: 'model', parts: [{ text: labelled }] },
    summarizer: model.modelId,
    ...(response.usageMetadata ? { usageMetadata: response.usageMetadata } : {}),
  };
  return { summary, request };
}

/**
 * The seq range of each message of a view's contents, merged as the view merges them (one
 * message per run of one role): the summary first (its range), then the visible events.
 * Synthetic repairs are not counted, so a repaired view gives a list of another length, which
 * `summarizeWithAgentPrefix` does not use (the lines then get the coarse range).
 */
export function messageSeqsOf(options: {
  summaryRange?: MessageSeqs;
  events: readonly Event[];
}): MessageSeqs[] {
  const messages: Array<MessageSeqs & { role: string }> = [];
  if (options.summaryRange) messages.push({ ...options.summaryRange, role: 'user' });
  for (const event of options.events) {
    if (event.partial || !event.content || event.content.parts.length === 0) continue;
    const last = messages[messages.length - 1];
    if (last && last.role === event.content.role) last.toSeq = event.seq;
    else messages.push({ fromSeq: event.seq, toSeq: event.seq, role: event.content.role });
  }
  // A view that opens with a model turn gets a continuation message first.
  if (messages[0]?.role === 'model') {
    const first = messages[0];
    messages.unshift({ fromSeq: first.fromSeq, toSeq: first.fromSeq, role: 'user' });
  }
  return messages.map(({ fromSeq, toSeq }) => ({ fromSeq, toSeq }));
}
