export * from './compaction-log.js';
export * from './metrics.js';
