import type {
  CompactionEvent,
  Content,
  Event,
  FunctionCall,
  FunctionResponse,
  NewEvent,
} from './types.js';

export function getFunctionCalls(event: NewEvent): FunctionCall[] {
  const calls: FunctionCall[] = [];
  for (const part of event.content?.parts ?? []) {
    if (part.functionCall) calls.push(part.functionCall);
  }
  return calls;
}

export function getFunctionResponses(event: NewEvent): FunctionResponse[] {
  const responses: FunctionResponse[] = [];
  for (const part of event.content?.parts ?? []) {
    if (part.functionResponse) responses.push(part.functionResponse);
  }
  return responses;
}

export function isCompactionEvent(event: Event): event is CompactionEvent;
export function isCompactionEvent(event: NewEvent): boolean;
export function isCompactionEvent(event: NewEvent): boolean {
  return event.actions?.compaction !== undefined;
}

/** Concatenated non-thought text of a content, or of an event's content. */
export function getText(source: Content | NewEvent | undefined): string {
  const content = source && 'parts' in source ? source : source?.content;
  if (!content) return '';
  let text = '';
  for (const part of content.parts) {
    if (part.text !== undefined && !part.thought) text += part.text;
  }
  return text;
}

export function newId(): string {
  return crypto.randomUUID();
}

/** Build a `NewEvent` with a fresh id, the current time and empty actions. */
export function createEvent(
  options: Partial<NewEvent> & Pick<NewEvent, 'author' | 'invocationId'>,
): NewEvent {
  return {
    id: options.id ?? newId(),
    timestamp: options.timestamp ?? Date.now() / 1000,
    ...options,
    actions: options.actions ?? {},
  };
}

/** A deep copy, so a store or caller never shares nested objects (args, state) with another. */
export function cloneEvent<T extends NewEvent>(event: T): T {
  return structuredClone(event);
}
