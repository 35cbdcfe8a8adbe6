/** `orrery/openai-agents`: orrery's lossless compaction as a Session for OpenAI Agents JS. */
export { AdapterOptionError } from '../shared/adapter-option-error.js';
export { OpenAIAgentsAdapterError } from './deprecated-error.js';
export { OrreryAgentsSession, type OrreryAgentsSessionOptions } from './orrery-agents-session.js';
export { OPENAI_AGENTS_METADATA_KEY, type Tombstone } from './session-view.js';
