/**
 * An adapter's memory spans: each search or add of a memory service used through an adapter
 * (ADK's `load_memory` and `preload_memory` through `OrreryAdkMemoryService`) as an
 * `orrery.memory {operation}` span under whatever span the host has active, as the adapters'
 * compaction spans (`AdapterTelemetry`). No query or memory text is recorded: only counts.
 * `@opentelemetry/api` is loaded on the first call; without it nothing is recorded.
 */
import { type SpanAttributes, Telemetry } from '../../observability/telemetry.js';

export type MemoryOperation = 'search' | 'add';

export class MemoryTelemetry {
  private load?: Promise<Telemetry>;

  /**
   * Runs `action` inside an `orrery.memory {operation}` span; `describe` adds attributes from
   * its result (e.g. how many memories were found). A throw fails the span and is rethrown.
   */
  async trace<T>(options: {
    operation: MemoryOperation;
    attributes: SpanAttributes;
    action: () => Promise<T>;
    describe?: (result: T) => SpanAttributes;
  }): Promise<T> {
    this.load ??= Telemetry.load();
    const telemetry = await this.load;
    const span = telemetry.startSpan({
      name: `orrery.memory ${options.operation}`,
      attributes: { 'orrery.memory.operation': options.operation, ...options.attributes },
    });
    try {
      const result = await options.action();
      if (options.describe) span.setAttributes(options.describe(result));
      return result;
    } catch (error) {
      span.fail(error);
      throw error;
    } finally {
      span.end();
    }
  }
}
