export * from './ceilings.js';
export * from './config.js';
export * from './errors.js';
export * from './expanded-view.js';
export * from './safe-split.js';
export * from './token-estimate.js';
export * from './triggers.js';
export type * from './types.js';
export * from './view.js';
