/**
 * The store as replay's Compactor sees it: recorded usage hidden (the replay sizes every request
 * by estimate, as the transcript's model was never asked), and the view the replay knows kept
 * current with its own appends so nothing is read back before a model call.
 */
import { rewindTarget } from '../../compaction/expanded-view.js';
import { estimateNextRequest } from '../../compaction/triggers.js';
import { isCompactionEvent } from '../../events/event-helpers.js';
import type { Event } from '../../events/types.js';
import type { Model } from '../../models/types.js';
import type { SessionService, StoredView } from '../../sessions/session-service.js';

/**
 * The recorded transcript's model as the context guard sees it: no known context window (the
 * replay bounds requests by the configured threshold and byte ceiling only); never called.
 */
export const RECORDED_MODEL: Model = {
  modelId: 'recorded',
  generate: () => Promise.reject(new Error('replay never calls the recorded model')),
};

/**
 * The view after `event` was appended to the store `known` came from, as the Compactor would
 * load it (recorded usage hidden), or `undefined` when only a read can tell: a write came in
 * between (a gap in `seq`), or the view is one the runtime expands (a rewind, ADK summaries).
 */
export function extendView(known: StoredView | undefined, event: Event): StoredView | undefined {
  if (!known || known.expandedFromCheckpointSeq !== undefined) return undefined;
  if (event.seq !== known.lastSeq + 1 || isCompactionEvent(event)) return undefined;
  if (rewindTarget(event) !== undefined) return undefined;
  known.tail.push(withoutUsage(event));
  known.lastSeq = event.seq;
  return known;
}

/**
 * `estimateNextRequest` of a view whose recorded usage is hidden (the basis is then always the
 * estimate): overhead, summary and every tail event as the view shows it under the elision rule
 * in force (docs/architecture.md#elision-the-cheap-tier), each stored event estimated once.
 */
export function estimateView(
  view: StoredView,
  overheadTokens: number,
  estimateEvent: (event: Event) => number,
): number {
  return estimateNextRequest({
    tail: view.tail,
    checkpoint: view.checkpoint,
    overheadTokens,
    estimateEvent,
  }).tokens;
}

/** An event as the Compactor sees it during replay: its recorded usage hidden. */
function withoutUsage<T extends Event>(event: T): T {
  if (!event.usageMetadata || isCompactionEvent(event)) return event;
  const { usageMetadata: _usage, ...rest } = event;
  return rest as T;
}

/** The store as the Compactor sees it during replay: recorded usage hidden, writes unchanged. */
export function usageBlind(service: SessionService): SessionService {
  const strip = withoutUsage;
  return {
    createSession: (options) => service.createSession(options),
    getSession: (options) => service.getSession(options),
    loadView: async (options) => {
      const view = await service.loadView(options);
      return { ...view, tail: view.tail.map(strip) };
    },
    listEvents: async (options) => {
      const page = await service.listEvents(options);
      return { ...page, events: page.events.map(strip) };
    },
    appendEvent: (options) => service.appendEvent(options),
    appendCompaction: (options) => service.appendCompaction(options),
    listSessions: (options) => service.listSessions(options),
    deleteSession: (options) => service.deleteSession(options),
  };
}
