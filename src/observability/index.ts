export * from './compaction-log.js';
export type { CompactionRecord } from './compaction-record.js';
export { maskingLogger } from './masked-logger.js';
export * from './metrics.js';
