export * from './adk-json.js';
export { toAdkEventJson } from './adk-json-export.js';
export * from './errors.js';
export * from './event-helpers.js';
export * from './schema.js';
export type * from './types.js';
export { assertValidEvent, type ValidateEventOptions } from './validate-event.js';
