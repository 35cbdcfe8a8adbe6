/**
 * The one place where transcripts become events: every importer feeds normalized messages here,
 * so call ids, result pairing, invocations and timestamps follow the same rules for all formats.
 *
 * Rules (documented in the README's import section):
 * - a call without an id gets `call_<n>`; a call reusing an id seen earlier is renamed
 *   `<id>_<n>` (tau-bench and SWE-agent reuse ids); both are reported;
 * - a result pairs with the pending call of the same (original) id; a result without an id, or
 *   whose id no pending call has, pairs with the oldest pending call (by position);
 * - a result with no pending call at all gets a synthesized model call before it (marked in
 *   `customMetadata`), so neither is dropped and the view stays paired;
 * - a call that never gets a result is kept and reported (the view answers it);
 * - a user message on the main branch starts a new invocation; sub-agent (branch) messages
 *   belong to the invocation that spawned them;
 * - timestamps come from the source when present and are made strictly increasing.
 */
import { newId } from '../events/event-helpers.js';
import { IMPORT_REPAIR_KEY } from '../events/metadata-keys.js';
import type { NewEvent, Part, UsageMetadata } from '../events/types.js';
import { ImportError } from './errors.js';
import { assertStorableEvents, MAX_EPOCH_SECONDS, splitLocation } from './store-rules.js';
import {
  SYNTHETIC_STEP,
  TimestampAssigner,
  type TimestampPlan,
  TimestampSurvey,
} from './timestamp-plan.js';
import type { Repair } from './types.js';

export interface BuilderCall {
  id?: string;
  name: string;
  args: Record<string, unknown>;
}

export interface BuilderResult {
  callId?: string;
  name?: string;
  response: Record<string, unknown>;
}

interface PendingCall {
  id: string;
  originalId?: string;
  name: string;
  answered: boolean;
  location: string;
}

interface Common {
  /** Where in the source, for repair reports: `messages[3]`, `line 12`. */
  location: string;
  /** Epoch seconds from the source, when it has one. */
  timestamp?: number;
  branch?: string;
  customMetadata?: Record<string, unknown>;
}

export { EARLIER_SUMMARY_KEY, IMPORT_REPAIR_KEY } from '../events/metadata-keys.js';

/**
 * Streamed output (docs/architecture.md#edge): each event goes to `sink` as soon as it is
 * complete, none is kept. Without `plan` (a first pass) times are provisional and the survey
 * learns the plan; with it (the second pass) times are final.
 */
export interface BuilderStream {
  sink: (event: NewEvent) => void;
  plan?: TimestampPlan;
  /** Check each event with the store's rules (the first pass does; the store does it again). */
  check?: boolean;
}

export class TranscriptBuilder {
  readonly repairs: Repair[] = [];
  private readonly events: NewEvent[] = [];
  private readonly sourceTimes: Array<number | undefined> = [];
  /** Where each event came from, for errors. */
  private readonly locations: string[] = [];
  private readonly agentName: string;
  private readonly startTime?: number;
  private readonly pendingByBranch = new Map<string, PendingCall[]>();
  private readonly seenCallIds = new Set<string>();
  private invocationId = newId();
  private generatedIds = 0;
  private readonly format?: string;
  private readonly stream?: BuilderStream;
  private readonly survey?: TimestampSurvey;
  private readonly assigner?: TimestampAssigner;
  private streamed = 0;

  /** `format`: named in errors. `stream`: hand events out as they are made (a streamed import). */
  constructor(options: {
    agentName?: string;
    startTime?: number;
    format?: string;
    stream?: BuilderStream;
  }) {
    this.agentName = options.agentName ?? 'agent';
    this.startTime = options.startTime;
    this.format = options.format;
    this.stream = options.stream;
    if (this.stream?.plan) this.assigner = new TimestampAssigner(this.stream.plan);
    else if (this.stream) this.survey = new TimestampSurvey();
  }

  get eventCount(): number {
    return this.stream ? this.streamed : this.events.length;
  }

  /** What the second pass of a streamed import needs (after `finish`). */
  timestampPlan(): TimestampPlan | undefined {
    return this.survey?.plan(this.startTime);
  }

  userMessage(options: Common & { parts: Part[] }): void {
    if (options.branch === undefined) {
      this.closePending(undefined, 'a new user message');
      this.invocationId = newId();
    }
    this.push({ author: 'user', content: { role: 'user', parts: options.parts } }, options);
  }

  modelMessage(
    options: Common & {
      parts: Part[];
      calls: BuilderCall[];
      usageMetadata?: UsageMetadata;
      finishReason?: string;
    },
  ): void {
    const pending = this.pending(options.branch);
    const callParts: Part[] = options.calls.map((call, index) => {
      const location = `${options.location} call ${index}`;
      const id = this.uniqueCallId(call.id, location);
      pending.push({ id, originalId: call.id, name: call.name, answered: false, location });
      return { functionCall: { id, name: call.name, args: call.args } };
    });
    const event: Partial<NewEvent> = {
      author: this.agentName,
      content: { role: 'model', parts: [...options.parts, ...callParts] },
    };
    if (options.usageMetadata) event.usageMetadata = options.usageMetadata;
    if (options.finishReason) event.finishReason = options.finishReason;
    this.push(event, options);
  }

  /** One function-response event (role `user`, author the agent) holding every result. */
  toolResults(options: Common & { results: BuilderResult[]; extraParts?: Part[] }): void {
    const pending = this.pending(options.branch);
    const synthesized: Part[] = [];
    const responseParts: Part[] = options.results.map((result, index) => {
      const location =
        options.results.length > 1 ? `${options.location} result ${index}` : options.location;
      let call = pending.find(
        (candidate) =>
          !candidate.answered &&
          result.callId !== undefined &&
          (candidate.originalId === result.callId || candidate.id === result.callId),
      );
      if (!call) {
        call = pending.find((candidate) => !candidate.answered);
        if (call) {
          this.repairs.push({
            kind: 'result_paired_by_position',
            message:
              result.callId === undefined
                ? `result without a call id paired with pending call '${call.id}' (${call.name})`
                : `result for call id '${result.callId}', which no pending call has, paired with pending call '${call.id}' (${call.name})`,
            location,
            callId: call.id,
          });
        }
      }
      if (!call) {
        const name = result.name ?? 'unknown_tool';
        const id = this.uniqueCallId(result.callId, location, true);
        call = { id, originalId: result.callId, name, answered: false, location };
        synthesized.push({ functionCall: { id, name, args: {} } });
        this.repairs.push({
          kind: 'call_synthesized',
          message: `result ${result.callId === undefined ? 'without a call id' : `for call id '${result.callId}'`} had no pending call: a call '${id}' (${name}) was synthesized before it`,
          location,
          callId: id,
        });
      }
      call.answered = true;
      return {
        functionResponse: {
          id: call.id,
          name: result.name ?? call.name,
          response: result.response,
        },
      };
    });
    if (synthesized.length > 0) {
      this.push(
        {
          author: this.agentName,
          content: { role: 'model', parts: synthesized },
          customMetadata: { [IMPORT_REPAIR_KEY]: 'call_synthesized' },
        },
        { location: options.location, timestamp: options.timestamp, branch: options.branch },
      );
    }
    this.prune(options.branch);
    this.push(
      {
        author: this.agentName,
        content: { role: 'user', parts: [...responseParts, ...(options.extraParts ?? [])] },
      },
      options,
    );
  }

  /**
   * The events with final, strictly increasing timestamps; reports calls never answered. Each
   * event is checked by the store's rules here, so a refusal names its line or message.
   */
  finish(): { events: NewEvent[]; repairs: Repair[] } {
    for (const branch of this.pendingByBranch.keys()) {
      this.closePending(branch === '' ? undefined : branch, 'the end of the transcript');
    }
    if (this.stream) {
      this.reportAdjusted(this.assigner?.adjusted ?? this.survey?.adjusted ?? 0);
      return { events: [], repairs: this.repairs };
    }
    this.assignTimestamps();
    assertStorableEvents(this.events, {
      format: this.format,
      locate: (index) => this.locations[index] ?? `event ${index}`,
    });
    return { events: this.events, repairs: this.repairs };
  }

  private push(event: Partial<NewEvent>, common: Common): void {
    const complete: NewEvent = {
      id: newId(),
      invocationId: this.invocationId,
      author: event.author ?? this.agentName,
      timestamp: 0,
      ...event,
      actions: {},
    };
    if (common.branch !== undefined) complete.branch = common.branch;
    if (common.customMetadata) {
      complete.customMetadata = { ...complete.customMetadata, ...common.customMetadata };
    }
    const time = common.timestamp;
    if (time !== undefined && Number.isFinite(time) && Math.abs(time) > MAX_EPOCH_SECONDS) {
      throw new ImportError({
        message: `timestamp out of range: it reads as ${time} epoch seconds, past the last date there is (${MAX_EPOCH_SECONDS}, year 275760)`,
        ...splitLocation(common.location),
        format: this.format,
      });
    }
    const source = time !== undefined && Number.isFinite(time) ? time : undefined;
    if (this.stream) {
      this.streamOut(complete, source, common.location);
      return;
    }
    this.events.push(complete);
    this.locations.push(common.location);
    this.sourceTimes.push(source);
  }

  private streamOut(event: NewEvent, source: number | undefined, location: string): void {
    const stream = this.stream as BuilderStream;
    event.timestamp = this.assigner
      ? this.assigner.next(source)
      : (this.survey as TimestampSurvey).add(source);
    if (stream.check) {
      assertStorableEvents([event], { format: this.format, locate: () => location });
    }
    this.streamed++;
    stream.sink(event);
  }

  private pending(branch: string | undefined): PendingCall[] {
    const key = branch ?? '';
    let list = this.pendingByBranch.get(key);
    if (!list) {
      list = [];
      this.pendingByBranch.set(key, list);
    }
    return list;
  }

  private prune(branch: string | undefined): void {
    const key = branch ?? '';
    const list = this.pendingByBranch.get(key);
    if (list)
      this.pendingByBranch.set(
        key,
        list.filter((call) => !call.answered),
      );
  }

  private closePending(branch: string | undefined, reason: string): void {
    for (const call of this.pending(branch)) {
      if (call.answered) continue;
      this.repairs.push({
        kind: 'call_without_result',
        message: `call '${call.id}' (${call.name}) has no result before ${reason}: kept as is`,
        location: call.location,
        callId: call.id,
      });
    }
    this.pendingByBranch.set(branch ?? '', []);
  }

  private uniqueCallId(id: string | undefined, location: string, quiet = false): string {
    if (id === undefined || id === '') {
      let generated: string;
      do {
        this.generatedIds++;
        generated = `call_${this.generatedIds}`;
      } while (this.seenCallIds.has(generated));
      this.seenCallIds.add(generated);
      if (!quiet) {
        this.repairs.push({
          kind: 'call_id_assigned',
          message: `call without an id given '${generated}'`,
          location,
          callId: generated,
        });
      }
      return generated;
    }
    if (!this.seenCallIds.has(id)) {
      this.seenCallIds.add(id);
      return id;
    }
    let suffix = 2;
    while (this.seenCallIds.has(`${id}_${suffix}`)) suffix++;
    const renamed = `${id}_${suffix}`;
    this.seenCallIds.add(renamed);
    this.repairs.push({
      kind: 'call_id_renamed',
      message: `call id '${id}' was already used earlier in the transcript: renamed '${renamed}'`,
      location,
      callId: renamed,
    });
    return renamed;
  }

  private assignTimestamps(): void {
    const firstKnownIndex = this.sourceTimes.findIndex((time) => time !== undefined);
    const assigner = new TimestampAssigner({
      count: this.events.length,
      firstKnownIndex,
      firstKnownTime: firstKnownIndex === -1 ? undefined : this.sourceTimes[firstKnownIndex],
      startTime: this.startTime,
    });
    this.events.forEach((event, index) => {
      event.timestamp = assigner.next(this.sourceTimes[index]);
    });
    this.reportAdjusted(assigner.adjusted);
  }

  private reportAdjusted(adjusted: number): void {
    if (adjusted > 0) {
      this.repairs.push({
        kind: 'timestamp_adjusted',
        message: `${adjusted} source timestamp(s) not after the previous event moved forward by ${SYNTHETIC_STEP}s steps`,
      });
    }
  }
}
