export * from './checksums.js';
export * from './errors.js';
export * from './mask-credentials.js';
export * from './redact-json.js';
export * from './rules.js';
export * from './scanner.js';
