/**
 * zod schemas of the event model (docs/architecture.md#the-event-model) and parsers that throw
 * `InvalidEventError` naming the path of the first bad field, e.g. `events[12].content.parts[0]`.
 * The rule the parsers and every store apply is `assertValidEvent` (validate-event.ts); these
 * schemas describe the same shape, and validate-event.test.ts keeps the two in agreement: change
 * them together.
 */
import { z } from 'zod';
import { InvalidEventError } from './errors.js';
import type { Event, NewEvent } from './types.js';
import { assertValidEvent, preview } from './validate-event.js';

export { preview };

const PART_KINDS = [
  'text',
  'functionCall',
  'functionResponse',
  'inlineData',
  'fileData',
  'executableCode',
  'codeExecutionResult',
] as const;

const count = z.number().int().nonnegative();
const tokens = z.number().nonnegative().finite();
const seq = z.number().int().positive();
const record = z.record(z.string(), z.unknown());

// Part-level objects are loose: fields ADK writes that orrery does not model pass through, so
// an imported session exports as it was.
export const FunctionCallSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().min(1),
  args: record,
  partialArgs: z.array(record).optional(),
  willContinue: z.boolean().optional(),
});

export const FunctionResponseSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().min(1),
  response: record,
  willContinue: z.boolean().optional(),
  scheduling: z.string().optional(),
});

export const InlineDataSchema = z.looseObject({
  mimeType: z.string().min(1),
  data: z.string(),
  displayName: z.string().optional(),
});

export const FileDataSchema = z.looseObject({
  fileUri: z.string().min(1),
  mimeType: z.string().min(1).optional(),
  displayName: z.string().optional(),
});

export const ExecutableCodeSchema = z.looseObject({
  code: z.string(),
  language: z.string().optional(),
});

export const CodeExecutionResultSchema = z.looseObject({
  outcome: z.string().min(1),
  output: z.string().optional(),
});

export const PartSchema = z
  .looseObject({
    text: z.string().optional(),
    thought: z.boolean().optional(),
    thoughtSignature: z.string().optional(),
    functionCall: FunctionCallSchema.optional(),
    functionResponse: FunctionResponseSchema.optional(),
    inlineData: InlineDataSchema.optional(),
    fileData: FileDataSchema.optional(),
    executableCode: ExecutableCodeSchema.optional(),
    codeExecutionResult: CodeExecutionResultSchema.optional(),
  })
  .superRefine((part, context) => {
    const kinds = PART_KINDS.filter((kind) => part[kind] !== undefined);
    if (kinds.length !== 1) {
      context.addIssue({
        code: 'custom',
        message:
          kinds.length === 0
            ? `a part must hold one of ${PART_KINDS.join(', ')}`
            : `a part must hold exactly one of ${PART_KINDS.join(', ')}, found ${kinds.join(' and ')}`,
      });
      return;
    }
    // `thought` marks reasoning text; on a call or response it would mean nothing.
    if (part.thought === true && part.text === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['thought'],
        message: '`thought` is only allowed on a text part',
      });
    }
  });

export const ContentSchema = z.object({
  role: z.enum(['user', 'model']),
  parts: z.array(PartSchema),
});

const ModalityTokenCountSchema = z.looseObject({
  modality: z.string().optional(),
  tokenCount: count.optional(),
});

export const UsageMetadataSchema = z.looseObject({
  promptTokenCount: count.optional(),
  candidatesTokenCount: count.optional(),
  totalTokenCount: count.optional(),
  cachedContentTokenCount: count.optional(),
  thoughtsTokenCount: count.optional(),
  toolUsePromptTokenCount: count.optional(),
  promptTokensDetails: z.array(ModalityTokenCountSchema).optional(),
  candidatesTokensDetails: z.array(ModalityTokenCountSchema).optional(),
  cacheTokensDetails: z.array(ModalityTokenCountSchema).optional(),
  toolUsePromptTokensDetails: z.array(ModalityTokenCountSchema).optional(),
  trafficType: z.string().optional(),
});

export const CompactionTriggerSchema = z.enum([
  'token_threshold',
  'sliding_window',
  'overflow',
  'manual',
]);

export const SummaryRequestSchema = z.object({
  via: z.enum(['agent_prefix', 'standalone']),
  reason: z.string().optional(),
});

// Loose: fields ADK writes that orrery does not model (ADK Go's `excludedEvents`) pass through.
export const EventCompactionSchema = z
  .looseObject({
    startSeq: seq,
    endSeq: seq,
    startTimestamp: z.number().finite(),
    endTimestamp: z.number().finite(),
    compactedContent: ContentSchema,
    trigger: CompactionTriggerSchema,
    tokensBefore: tokens,
    tokensAfter: tokens,
    summarizer: z.string().min(1),
    fallback: z.object({ from: z.string().min(1), reason: z.string() }).optional(),
    summaryRequest: SummaryRequestSchema.optional(),
    rolling: z.boolean().optional(),
  })
  .superRefine((compaction, context) => {
    if (compaction.startSeq > compaction.endSeq) {
      context.addIssue({
        code: 'custom',
        path: ['startSeq'],
        message: `startSeq must be <= endSeq (${compaction.endSeq})`,
      });
    }
  });

// Loose, as the compaction: a newer writer's extra fields pass through.
export const EventElisionSchema = z.looseObject({
  throughSeq: seq,
  minOutputBytes: z.number().int().min(1),
  trigger: CompactionTriggerSchema,
  tokensBefore: tokens,
  tokensAfter: tokens,
});

export const ToolConfirmationSchema = z.object({
  hint: z.string().optional(),
  confirmed: z.boolean().optional(),
  payload: z.unknown().optional(),
});

/** Unknown action keys (ADK adds some now and then) pass through untouched. */
export const EventActionsSchema = z.looseObject({
  stateDelta: record.optional(),
  artifactDelta: z.record(z.string(), z.number().int()).optional(),
  transferToAgent: z.string().optional(),
  escalate: z.boolean().optional(),
  skipSummarization: z.boolean().optional(),
  requestedToolConfirmations: z.record(z.string(), ToolConfirmationSchema).optional(),
  requestedAuthConfigs: record.optional(),
  compaction: EventCompactionSchema.optional(),
  elision: EventElisionSchema.optional(),
  branchCompaction: EventCompactionSchema.optional(),
  rewindBeforeInvocationId: z.string().optional(),
});

const newEventShape = {
  id: z.string().min(1),
  invocationId: z.string(),
  author: z.string().min(1),
  timestamp: z.number().finite().nonnegative(),
  branch: z.string().optional(),
  content: ContentSchema.optional(),
  usageMetadata: UsageMetadataSchema.optional(),
  actions: EventActionsSchema,
  longRunningToolIds: z.array(z.string()).optional(),
  partial: z.boolean().optional(),
  turnComplete: z.boolean().optional(),
  finishReason: z.string().optional(),
  errorCode: z.string().optional(),
  errorMessage: z.string().optional(),
  customMetadata: record.optional(),
};

function checkCompactionEvent(
  event: {
    content?: unknown;
    actions: { compaction?: { endSeq: number }; elision?: { throughSeq: number } };
    seq?: number;
  },
  context: z.RefinementCtx,
): void {
  // An elision rule, like a summary, can only cover events stored before it.
  const elision = event.actions.elision;
  if (elision && event.seq !== undefined && elision.throughSeq >= event.seq) {
    context.addIssue({
      code: 'custom',
      path: ['actions', 'elision', 'throughSeq'],
      message: `an elision must cover only earlier events (its own seq is ${event.seq})`,
    });
  }
  const compaction = event.actions.compaction;
  if (!compaction) return;
  if (event.content !== undefined) {
    context.addIssue({
      code: 'custom',
      path: ['content'],
      message:
        'a compaction event has no content (the summary is actions.compaction.compactedContent)',
    });
  }
  // A summary can only cover events stored before it.
  if (event.seq !== undefined && compaction.endSeq >= event.seq) {
    context.addIssue({
      code: 'custom',
      path: ['actions', 'compaction', 'endSeq'],
      message: `a compaction must cover only earlier events (its own seq is ${event.seq})`,
    });
  }
}

export const NewEventSchema = z.object(newEventShape).superRefine(checkCompactionEvent);

export const EventSchema = z.object({ ...newEventShape, seq }).superRefine(checkCompactionEvent);

export interface ParseOptions {
  /** Path prefix for error messages, e.g. `events[3]`. Default: `event`. */
  path?: string;
}

/**
 * Validate a stored event (with `seq`) by the one event rule (`assertValidEvent`, as every store
 * applies it). Throws `InvalidEventError` naming the bad field. Returns the schema's copy: known
 * fields in schema order, unknown ones dropped (unknown action keys kept).
 */
export function parseEvent(input: unknown, options: ParseOptions = {}): Event {
  const path = options.path ?? 'event';
  assertValidEvent(input, { path, stored: true });
  return parseWith(EventSchema, input, path) as Event;
}

/** Validate an event before append (no `seq` needed), as `parseEvent` does. */
export function parseNewEvent(input: unknown, options: ParseOptions = {}): NewEvent {
  const path = options.path ?? 'event';
  assertValidEvent(input, { path });
  return parseWith(NewEventSchema, input, path) as NewEvent;
}

/**
 * Validate a list of stored events: each one, and that `seq` strictly increases (the order
 * a session is stored and loaded in).
 */
export function parseEvents(input: unknown, options: ParseOptions = {}): Event[] {
  const path = options.path ?? 'events';
  if (!Array.isArray(input)) {
    throw invalid(path, 'expected an array of events', input);
  }
  const events: Event[] = [];
  let previous: Event | undefined;
  for (const [index, item] of input.entries()) {
    const event = parseEvent(item, { path: `${path}[${index}]` });
    if (previous && event.seq <= previous.seq) {
      throw invalid(
        `${path}[${index}].seq`,
        `seq must strictly increase (previous event has seq ${previous.seq})`,
        event.seq,
      );
    }
    events.push(event);
    previous = event;
  }
  return events;
}

/** Parse `input` with any schema, turning the first zod issue into an `InvalidEventError`. */
export function parseWith<T>(schema: z.ZodType<T>, input: unknown, path: string): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const issuePath = joinPath(path, issue.path);
  const value = valueAt(input, issue.path);
  return throwInvalid(issuePath, issue.message, value, result.error);
}

function throwInvalid(path: string, message: string, value: unknown, cause?: unknown): never {
  throw invalid(path, message, value, cause);
}

/** An `InvalidEventError` whose message shows the offending value. */
export function invalid(
  path: string,
  message: string,
  value: unknown,
  cause?: unknown,
): InvalidEventError {
  return new InvalidEventError({
    path,
    message: `${message} (got ${preview(value)})`,
    value,
    cause,
  });
}

/** `events[12].content.parts[0]` from a base and zod's path segments. */
export function joinPath(base: string, segments: readonly PropertyKey[]): string {
  let path = base;
  for (const segment of segments) {
    if (typeof segment === 'number') path += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z_$][\w$]*$/.test(segment)) {
      path += path === '' ? segment : `.${segment}`;
    } else path += `[${JSON.stringify(String(segment))}]`;
  }
  return path;
}

function valueAt(input: unknown, segments: readonly PropertyKey[]): unknown {
  let value = input;
  for (const segment of segments) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[segment];
  }
  return value;
}
