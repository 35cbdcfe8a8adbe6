/**
 * The Runner's spans: `@opentelemetry/api` loaded on the first run (a no-op without it), an
 * `invoke_agent` span per running invocation, and a span per compaction attempt under the
 * invocation of its session (docs/architecture.md#where-each-rule-lives).
 */
import type { SessionKey } from '../../events/types.js';
import { modelAttributes, Telemetry, type TelemetrySpan } from '../../observability/telemetry.js';
import type { CompactionReport } from '../compaction/compactor.js';

export function sessionKeyString(key: SessionKey): string {
  return JSON.stringify([key.appName, key.userId, key.sessionId]);
}

export class RunnerTelemetry {
  private load?: Promise<Telemetry>;
  /** `undefined` until the first run has loaded it. */
  telemetry?: Telemetry;
  /** The `invoke_agent` span of each session's running invocation: its compactions' parent. */
  private readonly agentSpans = new Map<string, TelemetrySpan>();

  /** Loads `@opentelemetry/api` once (every later call returns at once). */
  async ready(): Promise<Telemetry> {
    if (!this.telemetry) {
      this.load ??= Telemetry.load();
      this.telemetry = await this.load;
    }
    return this.telemetry;
  }

  /** Starts the invocation's span and makes it the parent of the session's compactions. */
  startAgentSpan(options: {
    key: SessionKey;
    agentName: string;
    /** The root agent's model, `provider:model` (none for a workflow root). */
    modelId?: string;
    telemetry: Telemetry;
  }) {
    const { key, agentName, modelId } = options;
    const span = options.telemetry.startSpan({
      name: `invoke_agent ${agentName}`,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': agentName,
        'gen_ai.conversation.id': key.sessionId,
        ...(modelId !== undefined && modelAttributes(modelId)),
      },
    });
    this.agentSpans.set(sessionKeyString(key), span);
    return span;
  }

  /** Forgets the session's parent span, unless a newer invocation has replaced it. */
  forgetAgentSpan(key: SessionKey, span: TelemetrySpan | undefined): void {
    const keyString = sessionKeyString(key);
    if (this.agentSpans.get(keyString) === span) this.agentSpans.delete(keyString);
  }

  /** A span per compaction attempt, under the `invoke_agent` span of the session's run. */
  traceCompaction(report: CompactionReport, key: SessionKey | undefined): void {
    if (!this.telemetry) return;
    const span = this.telemetry.startSpan({
      name: `orrery.compaction ${report.trigger}`,
      parent: key && this.agentSpans.get(sessionKeyString(key)),
      startTime: Date.now() - report.durationMs,
      attributes: {
        'gen_ai.conversation.id': report.sessionId,
        'orrery.compaction.trigger': report.trigger,
        'orrery.compaction.outcome': report.outcome,
        'orrery.compaction.tokens_before': report.tokensBefore,
        'orrery.compaction.tokens_after': report.tokensAfter,
        'orrery.compaction.start_seq': report.startSeq,
        'orrery.compaction.end_seq': report.endSeq,
        'orrery.compaction.summarizer': report.summarizer,
        'orrery.compaction.ineffective': report.ineffective,
        'orrery.compaction.fallback_from': report.fallback?.from,
      },
    });
    if (report.outcome === 'failed') span.fail(report.error ?? new Error(report.reason));
    span.end();
  }
}
