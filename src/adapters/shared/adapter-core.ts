/**
 * The half of the adapter core every framework shares (docs/architecture.md#the-adapter-core):
 * one adapter's compaction setup (config, summarizers, cool-down, logger, spans,
 * `onCompaction`) and the attempt that never throws into the framework's call. The conversation
 * adapters (AI SDK, LangChain) run it through `ConversationCore`'s step; the session adapters
 * (ADK, OpenAI Agents) through `compactAfterTurn` when the framework stores a turn.
 */
import type { Logger } from 'pino';
import { validateEventsCompactionConfig } from '../../compaction/config.js';
import type { EventsCompactionConfig, EventsSummarizer } from '../../compaction/types.js';
import type { CompactionTrigger, SessionKey } from '../../events/types.js';
import { createRuntimeLogger } from '../../observability/compaction-log.js';
import {
  type CompactionReport,
  type Compactor,
  changedView,
  coolDownFor,
} from '../../runtime/compaction/compactor.js';
import type { SummarizerCoolDown } from '../../runtime/compaction/summarizer-cool-down.js';
import type { SessionService } from '../../sessions/session-service.js';
import {
  type AdapterSummarizers,
  adapterSummarizers,
  afterTurnTriggers,
  attemptCompaction,
  createAdapterCompactor,
  reportCompaction,
} from './adapter-compaction.js';
import { checkCompactionGiven, checkSessionService } from './adapter-options.js';
import { AdapterTelemetry } from './adapter-telemetry.js';

/** The options every adapter takes for its store and its compaction. */
export interface AdapterCompactionOptions {
  /** Where conversations are stored (in memory, SQLite, PostgreSQL, your own). */
  sessionService: SessionService;
  /** Writes the summaries; default `compaction.summarizer`, else a `DigestSummarizer`. */
  summarizer?: EventsSummarizer;
  /** Tried when the summarizer fails; default a `DigestSummarizer` (`null`: none). */
  fallbackSummarizer?: EventsSummarizer | null;
  /** Called with each compaction attempt's report (metrics, tests). */
  onCompaction?: (report: CompactionReport) => void;
  /** Compaction lines, view repairs and store failures (masked). `false`: silent. */
  logger?: Logger | false;
}

export class AdapterCore {
  readonly sessionService: SessionService;
  /** `null`: the adapter stores but never compacts. */
  readonly config: EventsCompactionConfig | null;
  readonly logger: Logger;
  private readonly summarizers?: AdapterSummarizers;
  /** One cool-down for every Compactor this adapter builds. */
  private readonly coolDown?: SummarizerCoolDown;
  /** Compaction spans, under the host's active span. */
  private readonly telemetry = new AdapterTelemetry();
  private readonly onCompaction?: (report: CompactionReport) => void;

  constructor(options: AdapterCompactionOptions & { compaction: EventsCompactionConfig | null }) {
    checkSessionService(options);
    checkCompactionGiven(options.compaction);
    this.sessionService = options.sessionService;
    this.logger = createRuntimeLogger({ logger: options.logger });
    this.onCompaction = options.onCompaction;
    this.config =
      options.compaction === null ? null : validateEventsCompactionConfig(options.compaction);
    if (this.config) {
      this.summarizers = adapterSummarizers({ ...options, config: this.config });
      this.coolDown = coolDownFor(this.config);
    }
  }

  /** A Compactor over `sessionService` (default the adapter's), `config` changed by `adjust`. */
  createCompactor(
    options: {
      sessionService?: SessionService;
      adjust?: (config: EventsCompactionConfig) => EventsCompactionConfig;
    } = {},
  ): Compactor | undefined {
    if (!this.config || !this.summarizers) return undefined;
    return createAdapterCompactor({
      sessionService: options.sessionService ?? this.sessionService,
      config: options.adjust ? options.adjust(this.config) : this.config,
      summarizers: this.summarizers,
      ...(this.coolDown ? { coolDown: this.coolDown } : {}),
    });
  }

  /** One attempt: a failure becomes a `failed` report (never thrown), then it is reported. */
  async attempt(options: {
    key: SessionKey;
    trigger: CompactionTrigger;
    signal?: AbortSignal;
    compact: () => Promise<CompactionReport>;
  }): Promise<CompactionReport> {
    const { key } = options;
    const report = await attemptCompaction({
      sessionId: key.sessionId,
      trigger: options.trigger,
      signal: options.signal,
      attempt: options.compact,
    });
    await reportCompaction({
      report,
      key,
      logger: this.logger,
      telemetry: this.telemetry,
      onCompaction: this.onCompaction,
    });
    return report;
  }

  /**
   * After the framework stored a turn: the token trigger, then the sliding window (or only
   * `triggers`), until one changes the view. Returns that report, else `undefined`.
   */
  async compactAfterTurn(options: {
    key: SessionKey;
    triggers?: CompactionTrigger[];
    compact: (trigger: CompactionTrigger) => Promise<CompactionReport>;
  }): Promise<CompactionReport | undefined> {
    if (!this.config) return undefined;
    for (const trigger of options.triggers ?? afterTurnTriggers(this.config)) {
      const report = await this.attempt({
        key: options.key,
        trigger,
        compact: () => options.compact(trigger),
      });
      // An elision rule changed the view as a summary does: the later trigger waits.
      if (changedView(report)) return report;
    }
    return undefined;
  }
}
