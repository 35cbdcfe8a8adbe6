export * from './errors.js';
export * from './event-helpers.js';
export * from './schema.js';
export type * from './types.js';
