/**
 * The one rule for a valid event (docs/architecture.md#the-event-model). Every store runs it on
 * append and on every row it reads, and `parseEvent` / `parseNewEvent` (the ADK codec, importers)
 * run it too, so an event one of them accepts the others accept. Hand-written rather than zod: it
 * runs on every append and every event a view loads, and allocates nothing on the happy path. The
 * zod schemas in `schema.ts` describe the same shape (a test keeps the two in agreement).
 *
 * A failure is an `InvalidEventError` naming the path and the value of the first bad field, e.g.
 * `event.content.parts[0].functionCall.id`.
 */
import { InvalidEventError } from './errors.js';
import { assertJsonValue } from './json-value.js';
import type { Event, NewEvent } from './types.js';

/** What a part holds: exactly one of these. */
export const EVENT_PART_KINDS = [
  'text',
  'functionCall',
  'functionResponse',
  'inlineData',
  'fileData',
  'executableCode',
  'codeExecutionResult',
] as const;

export const COMPACTION_TRIGGERS = [
  'token_threshold',
  'sliding_window',
  'overflow',
  'manual',
] as const;

export const USAGE_FIELDS = [
  'promptTokenCount',
  'candidatesTokenCount',
  'totalTokenCount',
  'cachedContentTokenCount',
  'thoughtsTokenCount',
  'toolUsePromptTokenCount',
] as const;

export interface ValidateEventOptions {
  /** Path prefix of error messages, e.g. `events[3]`. Default `event`. */
  path?: string;
  /**
   * `event`: `actions.compaction` must be absent (compactions go through `appendCompaction`).
   * `compaction`: it is required. Default: either.
   */
  kind?: 'event' | 'compaction';
  /** A stored event: `seq` is required, an integer >= 1. Default false (`seq` is not read). */
  stored?: boolean;
  /**
   * Check a compaction's range (`startSeq <= endSeq`, and `endSeq < seq` when stored). Default
   * true. Stores read with `false`: a stored compaction with an impossible range is readable
   * history, never a checkpoint (`isValidCompaction` in compaction/view.ts).
   */
  ranges?: boolean;
  /**
   * Check that every value is JSON (no NaN, bigint, Date, cycle...; see `assertJsonValue`).
   * Default true; values parsed from JSON text skip it.
   */
  json?: boolean;
}

/** A short, single-line rendering of a value for an error message. */
export function preview(value: unknown): string {
  if (value === undefined) return 'undefined';
  let text: string;
  try {
    text =
      typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

function fail(path: string, message: string, value: unknown): never {
  throw new InvalidEventError({ path, message: `${message} (got ${preview(value)})`, value });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function key(path: string, name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? `${path}.${name}` : `${path}[${JSON.stringify(name)}]`;
}

// The checks below take the parent's path and the field's name, and join them only on failure:
// the happy path builds no strings (it runs on every append and every event a view loads).

function requireString(value: unknown, base: string, name: string, nonEmpty: boolean): void {
  if (typeof value !== 'string') fail(`${base}.${name}`, 'must be a string', value);
  if (nonEmpty && value.length === 0) fail(`${base}.${name}`, 'must be a non-empty string', value);
}

function optionalString(value: unknown, base: string, name: string): void {
  if (value !== undefined && typeof value !== 'string') {
    fail(`${base}.${name}`, 'must be a string', value);
  }
}

function optionalBoolean(value: unknown, base: string, name: string): void {
  if (value !== undefined && typeof value !== 'boolean') {
    fail(`${base}.${name}`, 'must be a boolean', value);
  }
}

function optionalRecord(value: unknown, base: string, name: string): void {
  if (value !== undefined && !isRecord(value)) fail(`${base}.${name}`, 'must be an object', value);
}

function requireFinite(value: unknown, base: string, name: string, minimum?: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    fail(`${base}.${name}`, 'must be a finite number', value);
  }
  if (minimum !== undefined && value < minimum) {
    fail(`${base}.${name}`, `must be >= ${minimum}`, value);
  }
}

function requireSeq(value: unknown, base: string, name: string): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    fail(`${base}.${name}`, 'must be an integer >= 1', value);
  }
}

function checkCall(value: unknown, path: string, payload: 'args' | 'response'): void {
  if (!isRecord(value)) fail(path, 'must be an object', value);
  requireString(value.id, path, 'id', true);
  requireString(value.name, path, 'name', true);
  if (!isRecord(value[payload])) fail(`${path}.${payload}`, 'must be an object', value[payload]);
}

function failKinds(part: Record<string, unknown>, path: string): never {
  const found = EVENT_PART_KINDS.filter((kind) => part[kind] !== undefined);
  return fail(
    path,
    found.length === 0
      ? `a part must hold one of ${EVENT_PART_KINDS.join(', ')}`
      : `a part must hold exactly one of ${EVENT_PART_KINDS.join(', ')}, found ${found.join(' and ')}`,
    part,
  );
}

/**
 * Objects are walked with `for...in` over the keys they hold, never by reading each optional
 * field by name: reading absent properties is what costs (about 1.4 µs an event for an object
 * built with spread syntax, against 20 ns for the walk), and this runs on every append and read.
 */
function checkPart(part: unknown, path: string): void {
  if (!isRecord(part)) fail(path, 'must be an object', part);
  let kinds = 0;
  for (const name in part) {
    const value = part[name];
    if (value === undefined) continue;
    switch (name) {
      case 'text':
        kinds++;
        if (typeof value !== 'string') fail(`${path}.text`, 'must be a string', value);
        break;
      case 'thought':
        if (typeof value !== 'boolean') fail(`${path}.thought`, 'must be a boolean', value);
        break;
      case 'thoughtSignature':
        optionalString(value, path, name);
        break;
      case 'functionCall':
        kinds++;
        checkCall(value, `${path}.functionCall`, 'args');
        break;
      case 'functionResponse':
        kinds++;
        checkCall(value, `${path}.functionResponse`, 'response');
        break;
      case 'inlineData':
        kinds++;
        if (!isRecord(value)) fail(`${path}.inlineData`, 'must be an object', value);
        requireString(value.mimeType, `${path}.inlineData`, 'mimeType', true);
        requireString(value.data, `${path}.inlineData`, 'data', false);
        break;
      case 'fileData':
        kinds++;
        checkPartObject(value, `${path}.fileData`, 'fileUri', true);
        break;
      case 'executableCode':
        kinds++;
        checkPartObject(value, `${path}.executableCode`, 'code', false);
        break;
      case 'codeExecutionResult':
        kinds++;
        checkPartObject(value, `${path}.codeExecutionResult`, 'outcome', true);
        break;
    }
  }
  if (kinds !== 1) failKinds(part, path);
  // `thought` marks reasoning text; on a call or response it would mean nothing.
  if (part.thought === true && part.text === undefined) {
    fail(`${path}.thought`, '`thought` is only allowed on a text part', part.thought);
  }
}

/** A `fileData`, `executableCode` or `codeExecutionResult` part's object and its one required string. */
function checkPartObject(value: unknown, path: string, field: string, nonEmpty: boolean): void {
  if (value === undefined) return;
  if (!isRecord(value)) fail(path, 'must be an object', value);
  requireString(value[field], path, field, nonEmpty);
}

function checkContent(content: unknown, path: string): void {
  if (!isRecord(content)) fail(path, 'must be an object', content);
  if (content.role !== 'user' && content.role !== 'model') {
    fail(`${path}.role`, "must be 'user' or 'model'", content.role);
  }
  const parts = content.parts;
  if (!Array.isArray(parts)) fail(`${path}.parts`, 'must be an array', parts);
  for (let index = 0; index < parts.length; index++) {
    checkPart(parts[index], `${path}.parts[${index}]`);
  }
}

function checkUsage(usage: unknown, path: string): void {
  if (!isRecord(usage)) fail(path, 'must be an object', usage);
  for (const field in usage) {
    const value = usage[field];
    if (value === undefined || !USAGE_FIELDS.includes(field as never)) continue;
    if (!Number.isInteger(value) || (value as number) < 0) {
      fail(`${path}.${field}`, 'must be an integer >= 0', value);
    }
  }
}

function checkCompaction(compaction: unknown, path: string, options: RangeContext): void {
  if (!isRecord(compaction)) fail(path, 'must be an object', compaction);
  requireSeq(compaction.startSeq, path, 'startSeq');
  requireSeq(compaction.endSeq, path, 'endSeq');
  const startSeq = compaction.startSeq as number;
  const endSeq = compaction.endSeq as number;
  if (options.ranges && startSeq > endSeq) {
    fail(`${path}.startSeq`, `must be <= endSeq (${endSeq})`, startSeq);
  }
  // A summary can only cover events stored before it.
  if (options.ranges && options.seq !== undefined && endSeq >= options.seq) {
    fail(
      `${path}.endSeq`,
      `a compaction must cover only earlier events (its own seq is ${options.seq})`,
      endSeq,
    );
  }
  requireFinite(compaction.startTimestamp, path, 'startTimestamp');
  requireFinite(compaction.endTimestamp, path, 'endTimestamp');
  checkContent(compaction.compactedContent, `${path}.compactedContent`);
  if (!COMPACTION_TRIGGERS.includes(compaction.trigger as never)) {
    fail(`${path}.trigger`, `must be one of ${COMPACTION_TRIGGERS.join(', ')}`, compaction.trigger);
  }
  requireFinite(compaction.tokensBefore, path, 'tokensBefore', 0);
  requireFinite(compaction.tokensAfter, path, 'tokensAfter', 0);
  requireString(compaction.summarizer, path, 'summarizer', true);
  const fallback = compaction.fallback;
  if (fallback !== undefined) {
    if (!isRecord(fallback)) fail(`${path}.fallback`, 'must be an object', fallback);
    requireString(fallback.from, `${path}.fallback`, 'from', true);
    requireString(fallback.reason, `${path}.fallback`, 'reason', false);
  }
}

/** An elision rule (docs/architecture.md#elision-the-cheap-tier); ranges as a compaction's. */
function checkElision(elision: unknown, path: string, options: RangeContext): void {
  if (!isRecord(elision)) fail(path, 'must be an object', elision);
  requireSeq(elision.throughSeq, path, 'throughSeq');
  const throughSeq = elision.throughSeq as number;
  if (options.ranges && options.seq !== undefined && throughSeq >= options.seq) {
    fail(
      `${path}.throughSeq`,
      `an elision must cover only earlier events (its own seq is ${options.seq})`,
      throughSeq,
    );
  }
  requireSeq(elision.minOutputBytes, path, 'minOutputBytes');
  if (!COMPACTION_TRIGGERS.includes(elision.trigger as never)) {
    fail(`${path}.trigger`, `must be one of ${COMPACTION_TRIGGERS.join(', ')}`, elision.trigger);
  }
  requireFinite(elision.tokensBefore, path, 'tokensBefore', 0);
  requireFinite(elision.tokensAfter, path, 'tokensAfter', 0);
}

interface RangeContext {
  ranges: boolean;
  seq?: number;
}

function checkConfirmations(confirmations: unknown, path: string): void {
  if (!isRecord(confirmations)) fail(path, 'must be an object', confirmations);
  for (const callId in confirmations) {
    const confirmation = confirmations[callId];
    const at = key(path, callId);
    if (!isRecord(confirmation)) fail(at, 'must be an object', confirmation);
    optionalString(confirmation.hint, at, 'hint');
    optionalBoolean(confirmation.confirmed, at, 'confirmed');
  }
}

function checkArtifacts(artifacts: unknown, path: string): void {
  if (!isRecord(artifacts)) fail(path, 'must be an object', artifacts);
  for (const name in artifacts) {
    if (!Number.isInteger(artifacts[name])) {
      fail(key(path, name), 'must be an integer version', artifacts[name]);
    }
  }
}

/** Unknown action keys (ADK adds some now and then) pass untouched. */
function checkActions(actions: unknown, path: string, range: RangeContext): void {
  if (!isRecord(actions)) fail(path, 'must be an object', actions);
  for (const name in actions) {
    const value = actions[name];
    if (value === undefined) continue;
    switch (name) {
      case 'stateDelta':
      case 'requestedAuthConfigs':
        optionalRecord(value, path, name);
        break;
      case 'artifactDelta':
        checkArtifacts(value, `${path}.artifactDelta`);
        break;
      case 'transferToAgent':
        optionalString(value, path, name);
        break;
      case 'escalate':
      case 'skipSummarization':
        optionalBoolean(value, path, name);
        break;
      case 'requestedToolConfirmations':
        checkConfirmations(value, `${path}.requestedToolConfirmations`);
        break;
      case 'compaction':
        checkCompaction(value, `${path}.compaction`, range);
        break;
      case 'elision':
        checkElision(value, `${path}.elision`, range);
        break;
      case 'branchCompaction':
        checkCompaction(value, `${path}.branchCompaction`, range);
        break;
    }
  }
}

function checkToolIds(toolIds: unknown, path: string): void {
  if (!Array.isArray(toolIds)) fail(path, 'must be an array', toolIds);
  for (let index = 0; index < toolIds.length; index++) {
    if (typeof toolIds[index] !== 'string') {
      fail(`${path}[${index}]`, 'must be a string', toolIds[index]);
    }
  }
}

/** The event's own fields; `actions` is checked by the caller (it needs the range context). */
function checkFields(event: Record<string, unknown>, path: string): void {
  requireString(event.id, path, 'id', true);
  requireString(event.invocationId, path, 'invocationId', false);
  requireString(event.author, path, 'author', true);
  requireFinite(event.timestamp, path, 'timestamp', 0);
  for (const name in event) {
    const value = event[name];
    if (value === undefined) continue;
    switch (name) {
      case 'branch':
      case 'finishReason':
      case 'errorCode':
      case 'errorMessage':
        optionalString(value, path, name);
        break;
      case 'partial':
      case 'turnComplete':
        optionalBoolean(value, path, name);
        break;
      case 'customMetadata':
        optionalRecord(value, path, name);
        break;
      case 'longRunningToolIds':
        checkToolIds(value, `${path}.longRunningToolIds`);
        break;
      case 'content':
        checkContent(value, `${path}.content`);
        break;
      case 'usageMetadata':
        checkUsage(value, `${path}.usageMetadata`);
        break;
    }
  }
}

/**
 * Throws `InvalidEventError` naming the path and value of the first field that breaks the event
 * rule (see `ValidateEventOptions` for what is checked when).
 */
export function assertValidEvent(
  value: unknown,
  options: ValidateEventOptions & { stored: true },
): asserts value is Event;
export function assertValidEvent(
  value: unknown,
  options?: ValidateEventOptions,
): asserts value is NewEvent;
export function assertValidEvent(value: unknown, options: ValidateEventOptions = {}): void {
  const path = options.path ?? 'event';
  if (!isRecord(value)) fail(path, 'must be an object', value);
  let seq: number | undefined;
  if (options.stored) {
    requireSeq(value.seq, path, 'seq');
    seq = value.seq as number;
  }
  checkFields(value, path);
  checkActions(value.actions, `${path}.actions`, { ranges: options.ranges ?? true, seq });
  const compaction = (value.actions as Record<string, unknown>).compaction;
  if (options.kind === 'event' && compaction !== undefined) {
    fail(
      `${path}.actions.compaction`,
      'compaction events must be appended with appendCompaction',
      compaction,
    );
  }
  if (options.kind === 'compaction' && compaction === undefined) {
    fail(
      `${path}.actions.compaction`,
      'is required: appendCompaction only takes compaction events',
      compaction,
    );
  }
  if (compaction !== undefined && value.content !== undefined) {
    fail(
      `${path}.content`,
      'a compaction event has no content (the summary is actions.compaction.compactedContent)',
      value.content,
    );
  }
  if (options.json ?? true) assertJsonValue(value, path);
}
