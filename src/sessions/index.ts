export * from './errors.js';
export { InMemoryLeases } from './in-memory-lease.js';
export * from './in-memory-session-service.js';
export {
  DEFAULT_LEASE_TTL_MS,
  DEFAULT_LEASE_WAIT_MS,
  type LeaseRecordOperations,
} from './lease-helpers.js';
export type * from './memory-service.js';
export { type AcquireRecordLeaseOptions, acquireRecordLease } from './record-lease.js';
export {
  SessionMemoryService,
  type SessionMemoryServiceOptions,
} from './session-memory-service.js';
export type * from './session-service.js';
export {
  assertCompactionFits,
  assertValidNewEvent,
  mergeState,
  splitState,
  toStoredEvent,
} from './store-helpers.js';
