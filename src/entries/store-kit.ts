/**
 * `orrery-runtime/store-kit`: for authors of a `SessionService` or an `EmbeddingIndex` of their
 * own: the event schemas and validators a store runs on append and read, the state and lease
 * helpers the bundled stores share, and the option types of the store contract's methods. Run
 * `orrery-runtime/testing/conformance` against the result.
 */

export {
  ContentSchema,
  EventSchema,
  NewEventSchema,
  type ParseOptions,
  parseEvent,
  parseEvents,
  parseNewEvent,
} from '../events/schema.js';
export { assertValidEvent, type ValidateEventOptions } from '../events/validate-event.js';
export type {
  GetVectorsOptions,
  IndexedVector,
  PutVectorsOptions,
} from '../runtime/embeddings/embedding-index.js';
export { InMemoryLeases } from '../sessions/in-memory-lease.js';
export {
  DEFAULT_LEASE_TTL_MS,
  DEFAULT_LEASE_WAIT_MS,
  type LeaseRecordOperations,
  releaseLeaseWith,
} from '../sessions/lease-helpers.js';
export type { ReadMemoriesOptions } from '../sessions/memory-service.js';
export { type AcquireRecordLeaseOptions, acquireRecordLease } from '../sessions/record-lease.js';
export type {
  AcquireLeaseOptions,
  AppendCompactionOptions,
  AppendEventAndReleaseLeaseOptions,
  AppendEventOptions,
  ImportSessionOptions,
  ImportSessionResult,
  ListAllSessionsOptions,
  SessionLease,
} from '../sessions/session-service.js';
export {
  assertCompactionFits,
  assertValidNewEvent,
  mergeState,
  splitState,
  toStoredEvent,
} from '../sessions/store-helpers.js';
