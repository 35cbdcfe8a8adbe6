/**
 * What a streamed import of a file gives (`importTranscriptFile`): everything known before the
 * first write (meta, every repair, counts: the first pass learned them), and the events, read
 * from the file again as a store pulls them. See docs/architecture.md#edge (importers).
 */
import { getFunctionCalls } from '../events/event-helpers.js';
import type { NewEvent } from '../events/types.js';
import type { ImportMeta, Repair } from './types.js';

export interface ImportStats {
  events: number;
  /** Events with a model-role content. */
  modelCalls: number;
  toolCalls: number;
  invocations: number;
}

export interface StreamedImport {
  meta: ImportMeta;
  repairs: Repair[];
  stats: ImportStats;
  /**
   * `file`: `events()` reads the file again, one record at a time (JSONL, top-level JSON
   * arrays; a run of a multi-run array reads back only its own bytes); `memory`: the events are
   * held (whole-document formats, parsed whole).
   */
  source: 'file' | 'memory';
  /**
   * The events in order (each call starts again). The same events as the first pass saw, with
   * fresh ids; an error reading them is an `ImportError` naming the file.
   */
  events(options?: { signal?: AbortSignal }): AsyncIterable<NewEvent>;
}

/** Counts events as they pass, holding nothing but the latest invocation id. */
export class StatsCounter {
  readonly stats: ImportStats = { events: 0, modelCalls: 0, toolCalls: 0, invocations: 0 };
  private readonly invocationIds = new Set<string>();

  /**
   * `contiguous`: the events of one invocation are consecutive (the transcript builder's
   * output), so a change of id is a new invocation and no id needs keeping.
   */
  constructor(private readonly contiguous: boolean) {}

  private lastInvocationId?: string;

  add(event: NewEvent): void {
    const stats = this.stats;
    stats.events++;
    if (event.content?.role === 'model') stats.modelCalls++;
    stats.toolCalls += getFunctionCalls(event).length;
    if (this.contiguous) {
      if (event.invocationId !== this.lastInvocationId) stats.invocations++;
      this.lastInvocationId = event.invocationId;
    } else if (!this.invocationIds.has(event.invocationId)) {
      this.invocationIds.add(event.invocationId);
      stats.invocations++;
    }
  }
}
