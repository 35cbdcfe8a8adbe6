/** Checks an event before it is written, so that every stored row reads back. */
import { InvalidEventError } from '../../events/errors.js';
import type { EventCompaction, NewEvent } from '../../events/types.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function validateEventInput(event: NewEvent): void {
  if (!isRecord(event)) {
    throw new InvalidEventError({ path: 'event', message: 'must be an object', value: event });
  }
  for (const field of ['id', 'invocationId', 'author'] as const) {
    if (typeof event[field] !== 'string') {
      throw new InvalidEventError({
        path: `event.${field}`,
        message: `must be a string, got ${JSON.stringify(event[field])}`,
        value: event[field],
      });
    }
  }
  if (typeof event.timestamp !== 'number' || !Number.isFinite(event.timestamp)) {
    throw new InvalidEventError({
      path: 'event.timestamp',
      message: `must be a finite number (epoch seconds), got ${JSON.stringify(event.timestamp)}`,
      value: event.timestamp,
    });
  }
  if (!isRecord(event.actions)) {
    throw new InvalidEventError({
      path: 'event.actions',
      message: 'must be an object',
      value: event.actions,
    });
  }
  if (event.content !== undefined) {
    const content = event.content as unknown;
    if (
      !isRecord(content) ||
      (content.role !== 'user' && content.role !== 'model') ||
      !Array.isArray(content.parts) ||
      !content.parts.every(isRecord)
    ) {
      throw new InvalidEventError({
        path: 'event.content',
        message: "must be { role: 'user' | 'model', parts: Part[] }",
        value: content,
      });
    }
  }
}

/** A compaction event: `actions.compaction` with an integer range `1 <= startSeq <= endSeq`, no content. */
export function validateCompactionInput(event: NewEvent): EventCompaction {
  validateEventInput(event);
  const compaction = event.actions.compaction as unknown;
  if (!isRecord(compaction)) {
    throw new InvalidEventError({
      path: 'event.actions.compaction',
      message: 'a compaction event needs actions.compaction',
      value: compaction,
    });
  }
  if (event.content !== undefined) {
    throw new InvalidEventError({
      path: 'event.content',
      message:
        'a compaction event has no content (the summary is actions.compaction.compactedContent)',
      value: event.content,
    });
  }
  const { startSeq, endSeq } = compaction;
  if (!Number.isSafeInteger(startSeq) || (startSeq as number) < 1) {
    throw new InvalidEventError({
      path: 'event.actions.compaction.startSeq',
      message: `must be an integer >= 1, got ${JSON.stringify(startSeq)}`,
      value: startSeq,
    });
  }
  if (!Number.isSafeInteger(endSeq) || (endSeq as number) < (startSeq as number)) {
    throw new InvalidEventError({
      path: 'event.actions.compaction.endSeq',
      message: `must be an integer >= startSeq ${startSeq}, got ${JSON.stringify(endSeq)}`,
      value: endSeq,
    });
  }
  if (!isRecord(compaction.compactedContent)) {
    throw new InvalidEventError({
      path: 'event.actions.compaction.compactedContent',
      message: 'must be a Content object',
      value: compaction.compactedContent,
    });
  }
  return compaction as unknown as EventCompaction;
}
