/**
 * Row <-> event mapping for the PostgreSQL store, and the ADK state-prefix rules (`app:` is
 * shared by every user of the app, `user:` by every session of the user, `temp:` is never
 * stored).
 */
import type { Event, NewEvent } from '../../events/types.js';
import { SessionStoreError } from '../errors.js';

export interface EventRow {
  seq: string | number;
  is_compaction: boolean;
  compaction_start_seq: string | number | null;
  compaction_end_seq: string | number | null;
  event: unknown;
}

export const appPrefix = 'app:';
export const userPrefix = 'user:';
export const tempPrefix = 'temp:';

export interface ScopedState {
  session: Record<string, unknown>;
  app: Record<string, unknown>;
  user: Record<string, unknown>;
}

/** Splits a state or state delta by prefix; prefixes are stripped, `temp:` keys dropped. */
export function splitState(state: Record<string, unknown> | undefined): ScopedState {
  const scoped: ScopedState = { session: {}, app: {}, user: {} };
  for (const [key, value] of Object.entries(state ?? {})) {
    if (value === undefined || key.startsWith(tempPrefix)) continue;
    if (key.startsWith(appPrefix)) scoped.app[key.slice(appPrefix.length)] = value;
    else if (key.startsWith(userPrefix)) scoped.user[key.slice(userPrefix.length)] = value;
    else scoped.session[key] = value;
  }
  return scoped;
}

/** The state a caller sees: session keys plus the app and user keys under their prefixes. */
export function mergeState(scoped: ScopedState): Record<string, unknown> {
  const state: Record<string, unknown> = { ...scoped.session };
  for (const [key, value] of Object.entries(scoped.app)) state[appPrefix + key] = value;
  for (const [key, value] of Object.entries(scoped.user)) state[userPrefix + key] = value;
  return state;
}

/** The event as stored: no `seq` (a column) and no `temp:` keys in the state delta. */
export function toStoredEvent(event: NewEvent): NewEvent {
  const { seq: _seq, ...rest } = event as NewEvent & { seq?: number };
  const delta = rest.actions?.stateDelta;
  if (!delta || !Object.keys(delta).some((key) => key.startsWith(tempPrefix))) return rest;
  const kept = Object.fromEntries(
    Object.entries(delta).filter(([key]) => !key.startsWith(tempPrefix)),
  );
  return { ...rest, actions: { ...rest.actions, stateDelta: kept } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The first shape problem of a stored event, or `undefined` when it is readable. */
function findShapeProblem(row: EventRow, value: unknown): string | undefined {
  if (!isRecord(value)) return 'event is not a JSON object';
  for (const field of ['id', 'invocationId', 'author'] as const) {
    if (typeof value[field] !== 'string') return `field '${field}' is not a string`;
  }
  if (typeof value.timestamp !== 'number' || !Number.isFinite(value.timestamp)) {
    return `field 'timestamp' is not a number: ${JSON.stringify(value.timestamp)}`;
  }
  if (!isRecord(value.actions)) return `field 'actions' is not an object`;
  if (value.content !== undefined && value.content !== null) {
    const content = value.content;
    if (!isRecord(content)) return `field 'content' is not an object`;
    if (content.role !== 'user' && content.role !== 'model') {
      return `field 'content.role' is ${JSON.stringify(content.role)}`;
    }
    if (!Array.isArray(content.parts) || !content.parts.every(isRecord)) {
      return `field 'content.parts' is not a list of parts`;
    }
  }
  const compaction = value.actions.compaction;
  if (row.is_compaction) {
    if (!isRecord(compaction)) return `field 'actions.compaction' is missing`;
    if (
      compaction.startSeq !== Number(row.compaction_start_seq) ||
      compaction.endSeq !== Number(row.compaction_end_seq)
    ) {
      return `field 'actions.compaction' range ${JSON.stringify(compaction.startSeq)}..${JSON.stringify(compaction.endSeq)} does not match the row's ${row.compaction_start_seq}..${row.compaction_end_seq}`;
    }
    if (!isRecord(compaction.compactedContent)) {
      return `field 'actions.compaction.compactedContent' is not an object`;
    }
  } else if (compaction !== undefined) {
    return `field 'actions.compaction' is set on a row not marked as a compaction`;
  }
  return undefined;
}

/** Parses a row; throws `SessionStoreError` naming the session and `seq` when it is corrupt. */
export function rowToEvent(row: EventRow, sessionId: string): Event {
  const seq = Number(row.seq);
  const problem = findShapeProblem(row, row.event);
  if (problem) {
    throw new SessionStoreError({
      message: `Corrupt event in session '${sessionId}' at seq ${seq}: ${problem}`,
      sessionId,
      seq,
    });
  }
  return { ...(row.event as NewEvent), seq };
}
