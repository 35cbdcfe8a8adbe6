export * from './scripted-model.js';
export * from './session-service-conformance.js';
