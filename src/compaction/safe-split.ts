/**
 * The obligation ledger (docs/architecture.md#the-safe-split-and-the-ledger): where a summarized
 * range may end. A range ends only where nothing is open, so the retained tail never holds a
 * response whose call was summarized and a pending confirmation is never summarized away. Dead
 * calls (no response, invocation over) do not block. O(n): one backward scan for what the future
 * holds, one forward scan.
 */
import type { Event } from '../events/types.js';
import type { DeadCall } from './types.js';

export type ObligationKind =
  | 'function_call'
  | 'tool_confirmation'
  | 'auth_request'
  | 'long_running';

export interface Obligation {
  kind: ObligationKind;
  /** The function call id the obligation is keyed by. */
  id: string;
  /** `seq` of the event that opened it. */
  seq: number;
  invocationId: string;
  name?: string;
}

export interface SafeSplitOptions {
  /** Candidate events in `seq` order (the tail after the checkpoint). */
  events: Event[];
  /** Summarize `events[0..desiredEndIndex]` inclusive if safe; the split only moves earlier. */
  desiredEndIndex: number;
  /** The invocation still running (its calls are never dead). */
  currentInvocationId?: string;
}

export interface SafeSplit {
  /** Last index to summarize, `-1` when no safe split exists at or before the desired one. */
  endIndex: number;
  /** Calls summarized without a response because their invocation ended. */
  deadCalls: DeadCall[];
}

interface LedgerScan {
  /** Open obligation count after each index (dead calls never counted). */
  openAfter: (index: number) => number;
  open: Map<string, Obligation>;
  dead: Array<DeadCall & { index: number }>;
}

const KINDS_CLOSED_BY_RESPONSE: ObligationKind[] = [
  'function_call',
  'tool_confirmation',
  'auth_request',
];

function key(kind: ObligationKind, id: string): string {
  return `${kind}\u0000${id}`;
}

/**
 * What the future holds: the last index of a response to each id, and for each index whether a
 * later event belongs to another invocation (the event's invocation has ended).
 */
function scanFuture(events: Event[], stopIndex: number) {
  const lastResponseIndex = new Map<string, number>();
  events.forEach((event, index) => {
    for (const part of event.content?.parts ?? []) {
      if (part.functionResponse) lastResponseIndex.set(part.functionResponse.id, index);
    }
  });
  const invocationEndedAfter: boolean[] = [];
  // Distinct invocations seen after the index: the first one and whether there is another.
  let firstLater: string | undefined;
  let severalLater = false;
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!;
    if (index <= stopIndex) {
      invocationEndedAfter[index] =
        severalLater || (firstLater !== undefined && firstLater !== event.invocationId);
    }
    // A compaction event's fresh invocation id says nothing about the agent's invocations.
    if (event.actions?.compaction) continue;
    if (firstLater === undefined) firstLater = event.invocationId;
    else if (firstLater !== event.invocationId) severalLater = true;
  }
  return { lastResponseIndex, invocationEndedAfter };
}

function scanLedger(
  events: Event[],
  stopIndex: number,
  currentInvocationId: string | undefined,
): LedgerScan {
  const { lastResponseIndex, invocationEndedAfter } = scanFuture(events, stopIndex);
  const open = new Map<string, Obligation>();
  const openCounts: number[] = [];
  const dead: Array<DeadCall & { index: number }> = [];
  for (let index = 0; index <= stopIndex && index < events.length; index++) {
    const event = events[index]!;
    if (event.actions?.compaction) {
      openCounts.push(open.size);
      continue;
    }
    const parts = event.content?.parts ?? [];
    // Responses first: an event never closes what it opens itself.
    for (const part of parts) {
      const response = part.functionResponse;
      if (!response) continue;
      for (const kind of KINDS_CLOSED_BY_RESPONSE) open.delete(key(kind, response.id));
      const longRunning = open.get(key('long_running', response.id));
      // A response inside the call's own invocation is an intermediate update.
      if (longRunning && longRunning.invocationId !== event.invocationId) {
        open.delete(key('long_running', response.id));
      }
    }
    const longRunningIds = new Set(event.longRunningToolIds ?? []);
    for (const part of parts) {
      const call = part.functionCall;
      if (!call) continue;
      const base = {
        id: call.id,
        seq: event.seq,
        invocationId: event.invocationId,
        name: call.name,
      };
      if (longRunningIds.has(call.id)) {
        open.set(key('long_running', call.id), { kind: 'long_running', ...base });
        continue;
      }
      const isDead =
        (lastResponseIndex.get(call.id) ?? -1) <= index &&
        invocationEndedAfter[index] === true &&
        event.invocationId !== currentInvocationId;
      if (isDead) {
        dead.push({
          callId: call.id,
          name: call.name,
          seq: event.seq,
          invocationId: event.invocationId,
          index,
        });
      } else {
        open.set(key('function_call', call.id), { kind: 'function_call', ...base });
      }
    }
    for (const id of Object.keys(event.actions?.requestedToolConfirmations ?? {})) {
      open.set(key('tool_confirmation', id), {
        kind: 'tool_confirmation',
        id,
        seq: event.seq,
        invocationId: event.invocationId,
      });
    }
    for (const id of Object.keys(event.actions?.requestedAuthConfigs ?? {})) {
      open.set(key('auth_request', id), {
        kind: 'auth_request',
        id,
        seq: event.seq,
        invocationId: event.invocationId,
      });
    }
    openCounts.push(open.size);
  }
  return { openAfter: (index) => openCounts[index] ?? 0, open, dead };
}

/** Obligations still open after `events` (dead calls excluded). */
export function openObligations(options: {
  events: Event[];
  currentInvocationId?: string;
}): Obligation[] {
  const scan = scanLedger(options.events, options.events.length - 1, options.currentInvocationId);
  return [...scan.open.values()];
}

export function findSafeSplit(options: SafeSplitOptions): SafeSplit {
  const { events } = options;
  const desired = Math.min(options.desiredEndIndex, events.length - 1);
  if (desired < 0) return { endIndex: -1, deadCalls: [] };
  const scan = scanLedger(events, desired, options.currentInvocationId);
  let endIndex = -1;
  for (let index = desired; index >= 0; index--) {
    if (scan.openAfter(index) === 0) {
      endIndex = index;
      break;
    }
  }
  const deadCalls = scan.dead
    .filter((call) => call.index <= endIndex)
    .map(({ index: _index, ...call }) => call);
  return { endIndex, deadCalls };
}
