/** `orrery/adk`: orrery's lossless compaction as a session service for ADK for TypeScript. */
export { AdapterOptionError } from '../shared/adapter-option-error.js';
export { AdkAdapterError } from './deprecated-error.js';
export {
  type OrreryAdkMemoryEntry,
  OrreryAdkMemoryService,
  type OrreryAdkMemoryServiceOptions,
} from './orrery-adk-memory-service.js';
export {
  OrreryAdkSessionService,
  type OrreryAdkSessionServiceOptions,
} from './orrery-adk-session-service.js';
