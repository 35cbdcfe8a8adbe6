/** `orrery/ai-sdk`: orrery's lossless compaction for Vercel AI SDK apps. */

export { AdapterOptionError } from '../shared/adapter-option-error.js';
export { AI_SDK_METADATA_KEY } from '../shared/conversation-log.js';
export { type ConversationRef, PROVIDER_OPTIONS_KEY } from './call-options.js';
export type { AiSdkCompactionOptions } from './conversation-compaction.js';
export { AiSdkAdapterError } from './deprecated-error.js';
export { type CompactionMiddlewareOptions, compactionMiddleware } from './middleware.js';
export { type CompactionPrepareStepOptions, createCompactionPrepareStep } from './prepare-step.js';
