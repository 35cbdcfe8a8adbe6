export * from './event-builders.js';
export * from './scripted-model.js';
export * from './session-service-conformance.js';
export * from './recall-conversations.js';
