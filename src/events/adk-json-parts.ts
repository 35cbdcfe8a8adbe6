/**
 * ADK parts, calls, responses and usage in either casing, as orrery-shaped candidates (the
 * schema validates them after). Part of the ADK JSON reader (`adk-json.ts`); see
 * docs/architecture.md#the-event-model.
 */
import { extraFields, isPlainObject, readField, setDefined, toCamelKey } from './adk-casing.js';
import { EVENT_PART_KINDS, USAGE_FIELDS } from './validate-event.js';

const PART_KEYS = new Set<string>([...EVENT_PART_KINDS, 'thought', 'thoughtSignature']);

const USAGE_KEYS = [...USAGE_FIELDS, 'trafficType'];
/** Usage breakdowns: lists of genai `ModalityTokenCount` (`modality`, `token_count`). */
export const USAGE_DETAIL_KEYS = [
  'promptTokensDetails',
  'candidatesTokensDetails',
  'cacheTokensDetails',
  'toolUsePromptTokensDetails',
];

/** The fields of each part kind's object orrery models; the rest pass through as written. */
const PART_OBJECT_KEYS: Record<string, readonly string[]> = {
  inlineData: ['mimeType', 'data', 'displayName'],
  fileData: ['fileUri', 'mimeType', 'displayName'],
  executableCode: ['code', 'language'],
  codeExecutionResult: ['outcome', 'output'],
};

/** Function calls seen so far, by name, so id-less responses pair with them by position. */
export type OpenCalls = Map<string, string[]>;

export function camelizeKeys(value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [toCamelKey(key), item]));
}

export function convertContent(
  raw: unknown,
  fallbackRole: 'user' | 'model',
  eventId: string,
  openCalls: OpenCalls,
): unknown {
  if (!isPlainObject(raw)) return raw;
  const rawParts = readField(raw, 'parts') ?? [];
  const parts = Array.isArray(rawParts)
    ? rawParts.map((part, index) => convertPart(part, `${eventId}-${index}`, openCalls))
    : rawParts;
  // genai leaves `role` optional; a function response is always the user's turn.
  const hasResponse =
    Array.isArray(parts) && parts.some((part) => isPlainObject(part) && part.functionResponse);
  const role = readField(raw, 'role') ?? (hasResponse ? 'user' : fallbackRole);
  return { role, parts };
}

function convertPart(raw: unknown, partKey: string, openCalls: OpenCalls): unknown {
  if (!isPlainObject(raw)) return raw;
  // Unsupported kinds (fileData, executableCode, ...) stay so the error message shows them.
  const part: Record<string, unknown> = extraFields(raw, PART_KEYS);
  setDefined(part, 'text', readField(raw, 'text'));
  setDefined(part, 'thought', readField(raw, 'thought'));
  setDefined(part, 'thoughtSignature', readField(raw, 'thoughtSignature'));
  const call = readField(raw, 'functionCall');
  if (call !== undefined) part.functionCall = convertCall(call, partKey, openCalls);
  const response = readField(raw, 'functionResponse');
  if (response !== undefined) part.functionResponse = convertResponse(response, partKey, openCalls);
  for (const [kind, fields] of Object.entries(PART_OBJECT_KEYS)) {
    setDefined(part, kind, convertObject(readField(raw, kind), fields));
  }
  return part;
}

/** `fields` read in either casing, every other key kept as written (its name camelized). */
function convertObject(raw: unknown, fields: readonly string[]): unknown {
  if (!isPlainObject(raw)) return raw;
  const output: Record<string, unknown> = structuredClone(extraFields(raw, new Set(fields)));
  for (const field of fields) setDefined(output, field, readField(raw, field));
  return output;
}

/** A list of ADK objects (usage details, streamed call arguments): each one's keys camelized. */
function camelizeList(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((item) => structuredClone(camelizeKeys(item)));
}

/** A call without an id (older data) gets a deterministic one, so re-imports agree. */
function convertCall(raw: unknown, partKey: string, openCalls: OpenCalls): unknown {
  if (!isPlainObject(raw)) return raw;
  const name = readField(raw, 'name');
  let id = readField(raw, 'id');
  if (id === undefined || id === '') id = `${partKey}-call`;
  if (typeof name === 'string' && typeof id === 'string') {
    const open = openCalls.get(name) ?? [];
    open.push(id);
    openCalls.set(name, open);
  }
  const call: Record<string, unknown> = structuredClone(extraFields(raw, CALL_KEYS));
  Object.assign(call, { id, name, args: structuredClone(readField(raw, 'args') ?? {}) });
  setDefined(call, 'partialArgs', camelizeList(readField(raw, 'partialArgs')));
  setDefined(call, 'willContinue', readField(raw, 'willContinue'));
  return call;
}

const CALL_KEYS = new Set(['id', 'name', 'args', 'partialArgs', 'willContinue']);
const RESPONSE_KEYS = new Set(['id', 'name', 'response', 'willContinue', 'scheduling']);

/** A response without an id pairs with the oldest open call of the same name. */
function convertResponse(raw: unknown, partKey: string, openCalls: OpenCalls): unknown {
  if (!isPlainObject(raw)) return raw;
  const name = readField(raw, 'name');
  let id = readField(raw, 'id');
  const open = typeof name === 'string' ? openCalls.get(name) : undefined;
  if (id === undefined || id === '') {
    id = open?.shift() ?? `${partKey}-response`;
  } else if (open) {
    const index = open.indexOf(id as string);
    if (index >= 0) open.splice(index, 1);
  }
  const output: Record<string, unknown> = structuredClone(extraFields(raw, RESPONSE_KEYS));
  Object.assign(output, { id, name, response: structuredClone(readField(raw, 'response') ?? {}) });
  setDefined(output, 'willContinue', readField(raw, 'willContinue'));
  setDefined(output, 'scheduling', readField(raw, 'scheduling'));
  return output;
}

export function convertUsage(raw: unknown): unknown {
  if (!isPlainObject(raw)) return raw;
  const usage: Record<string, unknown> = structuredClone(
    extraFields(raw, new Set([...USAGE_KEYS, ...USAGE_DETAIL_KEYS])),
  );
  for (const key of USAGE_KEYS) setDefined(usage, key, readField(raw, key));
  for (const key of USAGE_DETAIL_KEYS) setDefined(usage, key, camelizeList(readField(raw, key)));
  return usage;
}
