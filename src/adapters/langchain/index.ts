/** `orrery/langchain`: orrery's lossless compaction as a LangChain.js v1 agent middleware. */

export { AdapterOptionError } from '../shared/adapter-option-error.js';
export {
  type OrreryCompactionMiddlewareOptions,
  orreryCompactionMiddleware,
} from './compaction-middleware.js';
export { LangChainAdapterError } from './deprecated-error.js';
