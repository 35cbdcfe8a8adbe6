/**
 * orrery's public API, chosen name by name (the API report `api/orrery.api.md` lists it with
 * signatures; CI fails when it changes unreviewed): what a user learns first, at most 200 names
 * (test/architecture/api-report.test.ts). Optional parts live behind subpaths: orrery/sqlite,
 * orrery/postgres, orrery/server, orrery/testing, orrery/testing/conformance, the adapters
 * (orrery/ai-sdk, orrery/adk, orrery/openai-agents, orrery/langchain), and for tool and store
 * authors orrery/compaction, orrery/store-kit, orrery/model-kit, orrery/importers,
 * orrery/adk-json, orrery/replay and orrery/costs (src/entries/). docs/library.md#entry-points.
 */

// Compaction configuration and the summarizer contract (internals: orrery/compaction).
export {
  COMPACTION_DEFAULTS,
  COMPACTION_ENV,
  type CreateEventsCompactionConfigOptions,
  createEventsCompactionConfig,
} from './compaction/config.js';
export { InvalidConfigError } from './compaction/errors.js';
export { estimateTextTokens } from './compaction/token-estimate.js';
export type {
  CostAwareConfig,
  ElisionConfig,
  EventsCompactionConfig,
  EventsSummarizer,
  SummarizeOptions,
  Summary,
} from './compaction/types.js';
export { SUMMARY_PREFIX } from './compaction/view.js';
// The event model (schemas and validators: orrery/store-kit; ADK JSON: orrery/adk-json).
export { InvalidArgumentError, InvalidEventError, OrreryError } from './events/errors.js';
export {
  createEvent,
  getFunctionCalls,
  getFunctionResponses,
  getText,
  isCompactionEvent,
  newId,
} from './events/event-helpers.js';
export type {
  CodeExecutionResult,
  CompactionEvent,
  CompactionTrigger,
  Content,
  Event,
  EventActions,
  EventCompaction,
  EventElision,
  ExecutableCode,
  FileData,
  FunctionCall,
  FunctionResponse,
  InlineData,
  JsonValue,
  ModalityTokenCount,
  NewEvent,
  Part,
  Role,
  Session,
  SessionKey,
  ToolConfirmation,
  UsageMetadata,
} from './events/types.js';
// Models: the interface, the AI SDK adapter, provider:model ids, errors.
export { type FromAiSdkOptions, fromAiSdk } from './models/ai-sdk-model.js';
export { knownContextWindow, knownContextWindowTokens } from './models/context-windows.js';
export {
  isContextOverflowError,
  ModelConfigError,
  ModelError,
  type ModelErrorKind,
} from './models/errors.js';
export {
  type KnownProvider,
  knownProviders,
  parseModelId,
  type ResolveModelOptions,
  resolveModel,
} from './models/resolve-model.js';
export type {
  FunctionDeclaration,
  Model,
  ModelRequest,
  ModelResponse,
  ModelStreamOptions,
  ModelStreamPart,
} from './models/types.js';
export { withContextWindow } from './models/with-context-window.js';
// Metrics and logging.
export { maskingLogger } from './observability/masked-logger.js';
export type { CompactionMetrics } from './observability/metrics.js';
export type { ModelMetrics } from './observability/model-metrics.js';
// Secrets and personal data taken out of text and JSON.
export { RedactionError } from './redaction/errors.js';
export { maskCredentials } from './redaction/mask-credentials.js';
export { type RedactOptions, redactJson, redactText } from './redaction/redact-json.js';
export { defaultRedactionRules } from './redaction/rules.js';
export type {
  PatternRule,
  RedactionCandidate,
  RedactionRule,
  ScanRule,
} from './redaction/scanner.js';
export {
  type Agent,
  type AgentEvent,
  type GenerateOptions,
  type InvocationContext,
  isPartialEvent,
  type PartialEvent,
  type RunToolsOptions,
} from './runtime/agents/agent.js';
export {
  type ControlTool,
  createExitLoopTool,
  createTransferTool,
  TRANSFER_TO_AGENT,
} from './runtime/agents/control-tools.js';
export { LlmAgent, type LlmAgentOptions } from './runtime/agents/llm-agent.js';
export { LoopAgent, type LoopAgentOptions } from './runtime/agents/loop-agent.js';
export { ParallelAgent, type ParallelAgentOptions } from './runtime/agents/parallel-agent.js';
export { SequentialAgent, type SequentialAgentOptions } from './runtime/agents/sequential-agent.js';
export { findAgent, usesBranches } from './runtime/agents/sub-agents.js';
export {
  type CompactionOutcome,
  type CompactionReport,
  type CompactOptions,
  Compactor,
  type CompactorHooks,
  type CompactorOptions,
} from './runtime/compaction/compactor.js';
// History search: optional embeddings (hybrid ranking) over any store's searchEvents.
export type { EmbeddingIndex } from './runtime/embeddings/embedding-index.js';
export {
  type EmbeddingSearchOptions,
  withEmbeddingSearch,
} from './runtime/embeddings/embedding-search.js';
export { EmbeddingError, type EmbeddingFailureReason } from './runtime/embeddings/errors.js';
export {
  InMemoryEmbeddingIndex,
  type InMemoryEmbeddingIndexOptions,
} from './runtime/embeddings/in-memory-embedding-index.js';
export {
  ContextOverflowError,
  MaxStepsExceededError,
  MessageTooLargeError,
  RunnerConfigError,
} from './runtime/errors.js';
export {
  PiiRedactionPlugin,
  type PiiRedactionPluginOptions,
} from './runtime/plugins/pii-redaction.js';
export type {
  AfterCompactionContext,
  AfterModelContext,
  AfterToolContext,
  BeforeCompactionContext,
  BeforeRunContext,
  CompactionContext,
  EventContext,
  ModelCallContext,
  Plugin,
  PluginRunContext,
  ToolCallContext,
} from './runtime/plugins/plugin.js';
export {
  ToolOutputCapPlugin,
  type ToolOutputCapPluginOptions,
} from './runtime/plugins/tool-output-cap.js';
export { AgentTool, type AgentToolOptions } from './runtime/tools/agent-tool.js';
export { type AiSdkToolLike, fromAiSdkTool } from './runtime/tools/from-ai-sdk-tool.js';
export { FunctionTool, type FunctionToolOptions } from './runtime/tools/function-tool.js';
export {
  createLoadMemoryTool,
  createPreloadMemoryPlugin,
  formatPreloadedMemories,
  LOAD_MEMORY_DESCRIPTION,
  LOAD_MEMORY_TOOL_NAME,
  type LoadedMemory,
  type LoadMemoryToolOptions,
  type MemoryPassage,
  PRELOAD_MEMORY_PLUGIN_NAME,
  type PreloadMemoryPluginOptions,
} from './runtime/tools/memory-tools.js';
export { toJsonValue } from './runtime/tools/to-json-value.js';
export type { Tool, ToolContext, ToolRunOptions, ToolState } from './runtime/tools/tool.js';
export type {
  JsonSchemaParameters,
  StandardSchemaV1,
  ToolArguments,
  ToolParameters,
} from './runtime/tools/tool-parameters.js';
export { type AgentApp, defineApp } from './runtime/turn/app.js';
export { Runner, type RunnerOptions, type RunOptions } from './runtime/turn/runner.js';
export type { SessionLeaseOptions } from './runtime/turn/session-lease.js';
// The runtime: Runner, agents, tools, plugins, compaction (replay: orrery/replay).
export { loadActiveView } from './runtime/view/active-view.js';
// The storage contract and the in-memory stores (helpers for writing your own: orrery/store-kit).
export {
  CompactionConflictError,
  SessionAlreadyExistsError,
  SessionBusyError,
  SessionLeaseLostError,
  SessionNotFoundError,
  SessionStoreError,
} from './sessions/errors.js';
export {
  InMemorySessionService,
  type InMemorySessionServiceOptions,
} from './sessions/in-memory-session-service.js';
export type {
  AddSessionToMemoryOptions,
  MemoryEntry,
  MemoryService,
  SearchMemoryOptions,
  SearchMemoryResponse,
} from './sessions/memory-service.js';
export { SEARCH_LANGUAGES, type SearchLanguage } from './sessions/query-terms.js';
export {
  SessionMemoryService,
  type SessionMemoryServiceOptions,
} from './sessions/session-memory-service.js';
export type {
  CreateSessionOptions,
  EventPage,
  GetSessionOptions,
  ListEventsOptions,
  ListSessionsOptions,
  SearchEventsOptions,
  SearchHit,
  SessionOverview,
  SessionService,
  SessionSummary,
  StoredView,
} from './sessions/session-service.js';
// Summarizers.
export { DigestSummarizer, type DigestSummarizerOptions } from './summarizers/digest-summarizer.js';
export { SummarizerError, type SummarizerErrorReason } from './summarizers/errors.js';
export {
  type FallbackSummarizer,
  type FallbackSummary,
  withFallback,
} from './summarizers/fallback-summarizer.js';
export {
  LlmEventSummarizer,
  type LlmEventSummarizerOptions,
} from './summarizers/llm-event-summarizer.js';
export type { Environment } from './util/environment.js';
