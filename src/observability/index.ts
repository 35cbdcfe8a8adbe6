export * from './compaction-log.js';
export type { CompactionRecord } from './compaction-record.js';
export { maskingLogger } from './masked-logger.js';
export * from './metrics.js';
export * from './model-metrics.js';
export type { SpanAttributes, StartSpanOptions, TelemetrySpan } from './telemetry.js';
export { Telemetry } from './telemetry.js';
