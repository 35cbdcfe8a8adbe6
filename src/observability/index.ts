export * from './compaction-log.js';
export { maskingLogger } from './masked-logger.js';
export * from './metrics.js';
