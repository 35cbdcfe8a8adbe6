export * from './errors.js';
export * from './event-helpers.js';
export type * from './types.js';
