/** `orrery/adk`: orrery's lossless compaction as a session service for ADK for TypeScript. */
export { AdkAdapterError } from './errors.js';
export {
  type OrreryAdkMemoryEntry,
  OrreryAdkMemoryService,
  type OrreryAdkMemoryServiceOptions,
} from './orrery-adk-memory-service.js';
export {
  OrreryAdkSessionService,
  type OrreryAdkSessionServiceOptions,
} from './orrery-adk-session-service.js';
