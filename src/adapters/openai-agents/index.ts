/** `orrery/openai-agents`: orrery's lossless compaction as a Session for OpenAI Agents JS. */
export { OpenAIAgentsAdapterError } from './errors.js';
export { OrreryAgentsSession, type OrreryAgentsSessionOptions } from './orrery-agents-session.js';
export { OPENAI_AGENTS_METADATA_KEY, type Tombstone } from './session-view.js';
