export * from './errors.js';
export * from './in-memory-session-service.js';
export type * from './session-service.js';
export {
  assertCompactionFits,
  assertValidNewEvent,
  mergeState,
  splitState,
  toStoredEvent,
} from './store-helpers.js';
