export * from './pii-redaction.js';
export type * from './plugin.js';
export * from './plugin-manager.js';
export * from './tool-output-cap.js';
