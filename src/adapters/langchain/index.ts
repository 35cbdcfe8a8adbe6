/** `orrery/langchain`: orrery's lossless compaction as a LangChain.js v1 agent middleware. */

export { AdapterOptionError } from '../shared/adapter-option-error.js';
export {
  type CompactionMiddlewareOptions,
  /** @deprecated `CompactionMiddlewareOptions`. */
  type CompactionMiddlewareOptions as OrreryCompactionMiddlewareOptions,
  compactionMiddleware,
  /** @deprecated The same function: `compactionMiddleware`, the AI SDK adapter's name too. */
  compactionMiddleware as orreryCompactionMiddleware,
} from './compaction-middleware.js';
export { LangChainAdapterError } from './deprecated-error.js';
