import type { NewEvent } from '../../events/types.js';

/** Every call id answered exactly once, every response after its call: the import invariant. */
export function pairingProblems(events: NewEvent[]): string[] {
  const problems: string[] = [];
  const calls = new Map<string, number>();
  const answered = new Set<string>();
  events.forEach((event, index) => {
    for (const part of event.content?.parts ?? []) {
      if (part.functionCall) {
        if (calls.has(part.functionCall.id))
          problems.push(`duplicate call id ${part.functionCall.id}`);
        calls.set(part.functionCall.id, index);
      }
      if (part.functionResponse) {
        const id = part.functionResponse.id;
        if (!calls.has(id)) problems.push(`response ${id} at ${index} without an earlier call`);
        if (answered.has(id)) problems.push(`call ${id} answered twice`);
        answered.add(id);
      }
    }
  });
  return problems;
}

export function increasingTimestamps(events: NewEvent[]): boolean {
  return events.every(
    (event, index) => index === 0 || event.timestamp > (events[index - 1] as NewEvent).timestamp,
  );
}

export function partsOf(event: NewEvent | undefined) {
  return event?.content?.parts ?? [];
}
