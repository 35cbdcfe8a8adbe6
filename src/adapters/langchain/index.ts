/** `orrery/langchain`: orrery's lossless compaction as a LangChain.js v1 agent middleware. */
export {
  type OrreryCompactionMiddlewareOptions,
  orreryCompactionMiddleware,
} from './compaction-middleware.js';
export { LangChainAdapterError } from './errors.js';
