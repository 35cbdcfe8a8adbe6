/**
 * An adapter's spans: each compaction attempt as an `orrery.compaction {trigger}` span (the
 * Runner's attributes) under whatever span is active in the host when the adapter runs (the AI
 * SDK's, LangChain's, ADK's or the app's own), so compactions show inside the host's trace.
 * `@opentelemetry/api` is loaded on the first compaction; without it, or without a tracer
 * provider, nothing is recorded.
 */
import type { CompactionReport } from '../../runtime/compaction/compactor.js';
import { RunnerTelemetry } from '../../runtime/turn/runner-telemetry.js';

export class AdapterTelemetry {
  private readonly spans = new RunnerTelemetry();

  /** One span for `report`, ended at once (it starts `durationMs` before now). */
  async traceCompaction(report: CompactionReport): Promise<void> {
    await this.spans.ready();
    // No invoke_agent span of orrery's here: the parent is the host's active span.
    this.spans.traceCompaction(report, undefined);
  }
}
