/** orrery's public API. Optional parts live behind subpaths: orrery/sqlite, orrery/postgres, orrery/testing. */
export * from './compaction/index.js';
export * from './events/index.js';
export * from './importers/index.js';
export * from './models/index.js';
export * from './observability/index.js';
export {
  defaultRedactionRules,
  maskCredentials,
  type PatternRule,
  type RedactionCandidate,
  type RedactionRule,
  type RedactOptions,
  redactJson,
  redactText,
  type ScanRule,
} from './redaction/index.js';
export * from './runtime/index.js';
export * from './sessions/index.js';
export * from './summarizers/index.js';
