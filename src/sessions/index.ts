export * from './errors.js';
export type * from './session-service.js';
