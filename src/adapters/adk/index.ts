/** `orrery/adk`: orrery's lossless compaction as a session service for ADK for TypeScript. */
export { AdkAdapterError } from './errors.js';
export {
  OrreryAdkSessionService,
  type OrreryAdkSessionServiceOptions,
} from './orrery-adk-session-service.js';
