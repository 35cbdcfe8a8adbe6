/**
 * Elision, the cheap tier before a summary (docs/architecture.md#elision-the-cheap-tier): bulky
 * old tool outputs are replaced in the view by a placeholder naming the tool, the size and the
 * `seq` to recall. The rule is an event in the log (`actions.elision`), so the view is the same
 * for every reader and every replay, and it moves only when the token trigger fires and the move
 * reclaims at least `minReclaimTokens`: the provider's prompt cache is invalidated once per step,
 * never every turn. Pure: stored events are never changed.
 */
import type { Event, EventElision, Part } from '../events/types.js';
import { estimateEventTokens } from './token-estimate.js';
import type { ElisionConfig } from './types.js';

/** Defaults of `elision` (the README's configuration table). */
export const ELISION_DEFAULTS = Object.freeze({
  /** Outputs of at most this many bytes stay whole: a placeholder would save little. */
  minOutputBytes: 2000,
  /** `minReclaimTokens` is this share of `tokenThreshold` unless set. */
  minReclaimShare: 0.1,
});

/** An event that records an elision rule. */
export type ElisionEvent = Event & { actions: { elision: EventElision } };

/** An elided response is `{ elided: '[tool output elided: …]' }`. */
export const ELIDED_RESPONSE_KEY = 'elided';

/** The part of every placeholder before the tool's name: how tests and evals recognize one. */
export const ELISION_PLACEHOLDER_PREFIX = '[tool output elided: ';

/** Whether `event` records an elision rule (valid or not). */
export function isElisionEvent(event: Event): boolean {
  return event.actions?.elision !== undefined;
}

/**
 * The validity rule of a stored elision: whole numbers, `1 <= throughSeq < seq`,
 * `minOutputBytes >= 1`. A row that claims more is readable history, never applied (as a
 * checkpoint with an impossible range).
 */
export function isValidElision(event: Event): event is ElisionEvent {
  const elision = event.actions?.elision;
  if (!elision) return false;
  const { throughSeq, minOutputBytes } = elision;
  return (
    Number.isInteger(throughSeq) &&
    Number.isInteger(minOutputBytes) &&
    throughSeq >= 1 &&
    throughSeq < event.seq &&
    minOutputBytes >= 1
  );
}

/** The rule the view applies: the valid elision event with the largest `seq` in `events`. */
export function latestElision(events: readonly Event[]): ElisionEvent | undefined {
  let latest: ElisionEvent | undefined;
  for (const event of events) {
    if (isValidElision(event) && (!latest || event.seq > latest.seq)) latest = event;
  }
  return latest;
}

/**
 * Sizes already measured, by response object: every view assembly under a rule measures each
 * old output, and a stored event never changes, so a tail held in memory (replay, a turn's
 * plan after its load) serializes each output once, not once per view.
 */
const measuredBytes = new WeakMap<Record<string, unknown>, number>();

/** UTF-8 bytes of a tool output as stored (its serialized `response`). */
export function responseBytes(response: Record<string, unknown>): number {
  let bytes = measuredBytes.get(response);
  if (bytes === undefined) {
    bytes = Buffer.byteLength(JSON.stringify(response), 'utf8');
    measuredBytes.set(response, bytes);
  }
  return bytes;
}

/** What the model reads instead of an elided output: short, and says how to read it back. */
export function elisionPlaceholder(options: {
  toolName: string;
  bytes: number;
  seq: number;
}): string {
  const { toolName, bytes, seq } = options;
  return `${ELISION_PLACEHOLDER_PREFIX}${toolName}, ${bytes} bytes, seq ${seq}; recall({ fromSeq: ${seq}, toSeq: ${seq} }) reads it]`;
}

function elidedPart(part: Part, seq: number, minOutputBytes: number): Part {
  const response = part.functionResponse;
  if (!response) return part;
  const bytes = responseBytes(response.response);
  if (bytes <= minOutputBytes) return part;
  const placeholder = elisionPlaceholder({ toolName: response.name, bytes, seq });
  // The part stays (call/response pairing holds); only its payload shrinks.
  return {
    ...part,
    functionResponse: { ...response, response: { [ELIDED_RESPONSE_KEY]: placeholder } },
  };
}

/**
 * `event` as the view shows it under `rule`: every function response over `minOutputBytes` of
 * an event at `seq <= throughSeq` replaced by its placeholder. The same object when nothing is
 * elided (so callers can tell, and caches keyed by the stored event stay right).
 */
export function elideEvent(event: Event, rule: EventElision | undefined): Event {
  const content = event.content;
  if (!rule || !content || event.seq > rule.throughSeq) return event;
  let parts: Part[] | undefined;
  content.parts.forEach((part, index) => {
    const elided = elidedPart(part, event.seq, rule.minOutputBytes);
    if (elided === part) return;
    parts ??= [...content.parts];
    parts[index] = elided;
  });
  return parts ? { ...event, content: { ...content, parts } } : event;
}

/** Every event as the view shows it under `rule` (the same array when there is no rule). */
export function applyElision(events: Event[], rule: EventElision | undefined): Event[] {
  if (!rule) return events;
  return events.map((event) => elideEvent(event, rule));
}

/** Whether an elision rule applies to these events (the recall tool then has work to do). */
export function hasElisionRule(events: readonly Event[]): boolean {
  return latestElision(events) !== undefined;
}

/** `elision` with its defaults resolved against the token threshold it serves. */
export function resolveElision(
  elision: ElisionConfig,
  tokenThreshold: number,
): Required<ElisionConfig> {
  return {
    minOutputBytes: elision.minOutputBytes ?? ELISION_DEFAULTS.minOutputBytes,
    minReclaimTokens:
      elision.minReclaimTokens ??
      Math.max(1, Math.floor(tokenThreshold * ELISION_DEFAULTS.minReclaimShare)),
  };
}

export interface PlanElisionOptions {
  /** The tail without compaction and elision events, in `seq` order. */
  tail: Event[];
  /** Index in `tail` of the newest event outside the retained tail (-1: none). */
  endIndex: number;
  /** The rule in force (already counted in `tokensBefore`). */
  current?: EventElision;
  elision: ElisionConfig;
  tokenThreshold: number;
  /** The next request's estimate under the current rule. */
  tokensBefore: number;
  /** How an unelided stored event is estimated (e.g. a `SessionEventTokens` cache). */
  estimateEvent?: (event: Event) => number;
}

/** A new rule that brings the next request far enough under the threshold. */
export interface ElisionCandidate {
  throughSeq: number;
  minOutputBytes: number;
  tokensAfter: number;
  /** Tool outputs the new rule elides that the current one did not. */
  newlyElided: number;
}

/**
 * The elision tier's decision: move the rule to the retained tail's boundary when that brings
 * the next request to at most `tokenThreshold - minReclaimTokens` (so the next trigger is at
 * least `minReclaimTokens` of new conversation away); otherwise `undefined`, and a summary is
 * due. The rule only moves forward.
 */
export function planElision(options: PlanElisionOptions): ElisionCandidate | undefined {
  const { tail, endIndex, current, tokenThreshold, tokensBefore } = options;
  const boundary = tail[endIndex];
  if (!boundary || boundary.seq <= (current?.throughSeq ?? 0)) return undefined;
  const { minOutputBytes, minReclaimTokens } = resolveElision(options.elision, tokenThreshold);
  const next: EventElision = {
    throughSeq: boundary.seq,
    minOutputBytes,
    trigger: 'token_threshold',
    tokensBefore,
    tokensAfter: tokensBefore,
  };
  const estimateStored = options.estimateEvent ?? estimateEventTokens;
  let reclaimed = 0;
  let newlyElided = 0;
  for (let index = 0; index <= endIndex; index++) {
    const event = tail[index]!;
    const after = elideEvent(event, next);
    if (after === event) continue;
    const before = elideEvent(event, current);
    const beforeTokens = before === event ? estimateStored(event) : estimateEventTokens(before);
    reclaimed += beforeTokens - estimateEventTokens(after);
    newlyElided += countElided(after, event) - countElided(before, event);
  }
  const tokensAfter = tokensBefore - reclaimed;
  if (newlyElided === 0 || tokensAfter > tokenThreshold - minReclaimTokens) return undefined;
  return { throughSeq: boundary.seq, minOutputBytes, tokensAfter, newlyElided };
}

/** Parts of `shown` that differ from the stored `event`'s (elided ones). */
function countElided(shown: Event, event: Event): number {
  if (shown === event) return 0;
  const stored = event.content?.parts ?? [];
  return (shown.content?.parts ?? []).filter((part, index) => part !== stored[index]).length;
}
