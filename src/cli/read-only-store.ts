/**
 * A store `orrery inspect` serves without the risk of changing it: reads pass through, every
 * write (a run's message, a manual compaction, a new or deleted session) is refused with a 405
 * that says why. The inspector's own routes only read.
 */
import type { CompactionEvent, Event, Session } from '../events/types.js';
import { HttpProblem } from '../server/errors.js';
import type { SessionService } from '../sessions/session-service.js';

function refused(action: string): HttpProblem {
  return new HttpProblem({
    status: 405,
    slug: 'read-only',
    title: 'Method Not Allowed',
    detail: `orrery inspect only reads the store: it does not ${action} (use orrery serve for that)`,
  });
}

/** `service` with its writes refused; optional read capabilities kept when it has them. */
export function readOnlyStore(service: SessionService): SessionService {
  const store: SessionService = {
    getSession: (options) => service.getSession(options),
    loadView: (options) => service.loadView(options),
    listEvents: (options) => service.listEvents(options),
    listSessions: (options) => service.listSessions(options),
    createSession: (): Promise<Session> => Promise.reject(refused('create sessions')),
    appendEvent: (): Promise<Event> => Promise.reject(refused('append events')),
    appendCompaction: (): Promise<CompactionEvent> => Promise.reject(refused('compact sessions')),
    deleteSession: (): Promise<void> => Promise.reject(refused('delete sessions')),
    close: () => service.close?.() ?? Promise.resolve(),
  };
  if (service.listAllSessions) store.listAllSessions = service.listAllSessions.bind(service);
  if (service.searchEvents) store.searchEvents = service.searchEvents.bind(service);
  return store;
}
