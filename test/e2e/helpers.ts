import { Writable } from 'node:stream';
import { type Logger, pino } from 'pino';
import type {
  Event,
  EventsSummarizer,
  SessionService,
  SummarizeOptions,
  Summary,
} from '../../src/index.js';

export const appName = 'e2e';
export const userId = 'user-1';

export async function collect(events: AsyncIterable<Event>): Promise<Event[]> {
  const collected: Event[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

export async function fullHistory(
  sessionService: SessionService,
  sessionId: string,
): Promise<Event[]> {
  const page = await sessionService.listEvents({ appName, userId, sessionId, limit: 100_000 });
  return page.events;
}

export function compactions(events: Event[]): Event[] {
  return events.filter((event) => event.actions.compaction !== undefined);
}

/** A summarizer that records what it was given and answers with a fixed text. */
export class RecordingSummarizer implements EventsSummarizer {
  readonly name = 'recording';
  readonly inputs: SummarizeOptions[] = [];
  constructor(
    private readonly answer: (options: SummarizeOptions) => Summary | null = () => ({
      content: { role: 'model', parts: [{ text: 'the user asked for things; tools ran' }] },
    }),
  ) {}

  async summarize(options: SummarizeOptions): Promise<Summary | null> {
    const { signal: _signal, ...rest } = options;
    this.inputs.push(structuredClone(rest));
    return this.answer(options);
  }
}

/** A pino logger whose JSON lines are kept in `lines`. */
export function capturingLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      callback();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

export function deferred<T = void>(): {
  promise: Promise<T>;
  resolve: (value: T) => void;
} {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
