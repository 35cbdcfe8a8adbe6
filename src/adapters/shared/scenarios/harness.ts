/**
 * What the shared adapter scenarios (`adapter-scenarios.test.ts`) need of a framework: one user
 * turn through the real host library with a scripted model, and the store it writes to. Each
 * adapter's `test-helpers/*-harness.ts` supplies one, so every case runs against all four.
 */
import type { EventsCompactionConfig, EventsSummarizer } from '../../../compaction/types.js';
import type { SessionKey } from '../../../events/types.js';
import type { CompactionReport } from '../../../runtime/compaction/compactor.js';
import type { SessionService } from '../../../sessions/session-service.js';

export interface HarnessOptions {
  sessionService: SessionService;
  compaction: EventsCompactionConfig;
  summarizer?: EventsSummarizer;
  onCompaction: (report: CompactionReport) => void;
}

export interface AdapterHarness {
  /** The session a conversation is stored under. */
  key(conversation: string): SessionKey;
  /** One user turn in `conversation` through the host framework (its whole tool loop). */
  turn(options: { conversation: string; text: string }): Promise<void>;
  /** The model's next request fails as the provider's refusal for size. */
  refuseNextForSize(): void;
  /** Model requests the scripted model received (refused ones included). */
  requests(): number;
}

export interface FrameworkUnderTest {
  name: string;
  /**
   * Whether the adapter sees the model call (and so compacts and retries once when it is
   * refused for size); a session adapter (ADK, OpenAI Agents) cannot, the refusal reaches the app.
   */
  retriesOverflow: boolean;
  create(options: HarnessOptions): AdapterHarness;
}

/** A provider's refusal for size, as OpenAI words it (status 400, `context_length_exceeded`). */
export function sizeRefusal(): Error {
  return Object.assign(
    new Error("This model's maximum context length is 8192 tokens (context_length_exceeded)"),
    { status: 400, code: 'context_length_exceeded' },
  );
}
