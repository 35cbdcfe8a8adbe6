/** ScriptedModel and event builders, without vitest (the conformance suite is orrery/testing/conformance). */
export * from './event-builders.js';
export * from './recall-conversations.js';
export * from './scripted-model.js';
