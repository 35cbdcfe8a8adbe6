/**
 * orrery's public API, chosen name by name (the API report `api/orrery.api.md` lists it with
 * signatures; CI fails when it changes unreviewed). Optional parts live behind subpaths:
 * orrery/sqlite, orrery/postgres, orrery/server, orrery/testing, orrery/testing/conformance and the
 * adapters (orrery/ai-sdk, orrery/adk, orrery/openai-agents, orrery/langchain).
 */

export {
  branchOf,
  eventsOnBranch,
  isBranchResult,
  isOnBranchPath,
  isVisibleOnBranch,
  scopeView,
  type ViewScope,
} from './compaction/branch-view.js';
// The pure core: configuration, the view, triggers, the safe split, estimates.
export {
  COMPACTION_DEFAULTS,
  COMPACTION_ENV,
  type CreateEventsCompactionConfigOptions,
  createEventsCompactionConfig,
  type Environment,
  resolveSummarizerModel,
  validateEventsCompactionConfig,
} from './compaction/config.js';
export {
  applyElision,
  ELISION_DEFAULTS,
  type ElisionEvent,
  isValidElision,
  latestElision,
} from './compaction/elision.js';
export { InvalidConfigError } from './compaction/errors.js';
export {
  type ExpandedView,
  expandView,
  isNonRollingCompaction,
} from './compaction/expanded-view.js';
export {
  findSafeSplit,
  type Obligation,
  type ObligationKind,
  openObligations,
  type SafeSplit,
  type SafeSplitOptions,
} from './compaction/safe-split.js';
export {
  estimateContentBytes,
  estimateContentListBytes,
  estimateContentListTokens,
  estimateContentTokens,
  estimateEventTokens,
  estimateTextTokens,
} from './compaction/token-estimate.js';
export {
  countCompletedInvocations,
  type EstimateNextRequestOptions,
  estimateNextRequest,
  type PlanCompactionOptions,
  planCompaction,
  planTieredCompaction,
  type RequestEstimate,
} from './compaction/triggers.js';
export type {
  CompactionDecision,
  CompactionPlan,
  CompactionRequest,
  CompactionSkip,
  CostAwareConfig,
  CostChoiceNote,
  DeadCall,
  ElisionConfig,
  ElisionPlan,
  EventsCompactionConfig,
  EventsCompactionOptions,
  EventsSummarizer,
  RetentionOverride,
  SummarizeOptions,
  Summary,
  TieredCompactionDecision,
} from './compaction/types.js';
export {
  type ActiveView,
  type AssembleViewOptions,
  activeView,
  assembleView,
  isBetterCheckpoint,
  isValidCompaction,
  SUMMARY_PREFIX,
  type ViewWarning,
} from './compaction/view.js';
// The cost model: prompt-cache splits per provider and dollars per request (docs/cost.md).
export {
  type CacheBilling,
  type CacheRequest,
  type CacheSplit,
  type CompactionChoice,
  type CompactionChoiceOptions,
  type CompactionChoiceReason,
  CostModelError,
  type CostTotals,
  chooseCompaction,
  defaultCachePolicy,
  type PriceRate,
  type PromptCachePolicy,
  type RequestCost,
  requestCosts,
  type SessionCostOptions,
  sessionCost,
  simulatePromptCache,
  type TokenPrices,
  type UsageCostOptions,
  usageUsd,
} from './costs/index.js';
// The event model, its validation and ADK JSON.
export type { AdkCasing } from './events/adk-casing.js';
export {
  type AdkSessionImport,
  fromAdkSessionJson,
  type ImportedEvent,
} from './events/adk-json.js';
export {
  type AdkDialect,
  type ToAdkSessionJsonOptions,
  toAdkEventJson,
  toAdkSessionJson,
} from './events/adk-json-export.js';
export {
  errorMessage,
  InvalidArgumentError,
  InvalidEventError,
  OrreryError,
} from './events/errors.js';
export {
  createEvent,
  getFunctionCalls,
  getFunctionResponses,
  getText,
  isCompactionEvent,
  newId,
} from './events/event-helpers.js';
export { EARLIER_SUMMARY_KEY, IMPORT_REPAIR_KEY } from './events/metadata-keys.js';
export {
  ContentSchema,
  EventSchema,
  NewEventSchema,
  type ParseOptions,
  parseEvent,
  parseEvents,
  parseNewEvent,
} from './events/schema.js';
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
export { assertValidEvent, type ValidateEventOptions } from './events/validate-event.js';
// Importers of recorded transcripts.
export { importAdk } from './importers/adk.js';
export { importAiSdk } from './importers/ai-sdk.js';
export { importClaudeCode } from './importers/claude-code.js';
export { ImportError } from './importers/errors.js';
export { type ImportTranscriptFileOptions, importTranscriptFile } from './importers/import-file.js';
export {
  type ImportTranscriptOptions,
  importTranscript,
  importTranscripts,
  parseImportFormat,
} from './importers/import-transcript.js';
export { importOpenAiChat } from './importers/openai-chat.js';
export { sniffFormat } from './importers/sniff.js';
export { JsonStreamError, RecordTooLargeError } from './importers/stream-errors.js';
export type { ImportStats, StreamedImport } from './importers/streamed-import.js';
export { importSweAgent } from './importers/swe-agent.js';
export {
  IMPORT_FORMATS,
  type ImportFormat,
  type ImportMeta,
  type ImportOptions,
  type ImportResult,
  type MultiRunImportOptions,
  type Repair,
} from './importers/types.js';
// Models: the interface, the AI SDK adapter, provider:model ids, errors.
export { type FromAiSdkOptions, fromAiSdk } from './models/ai-sdk-model.js';
export {
  type ClassifyModelErrorOptions,
  classifyModelError,
  retryAfterMs,
} from './models/classify-error.js';
export { knownContextWindow, knownContextWindowTokens } from './models/context-windows.js';
export {
  isContextOverflowError,
  ModelConfigError,
  ModelError,
  type ModelErrorKind,
} from './models/errors.js';
export { lookupModelPrice, type ModelPrice } from './models/price-catalog.js';
export {
  type KnownProvider,
  knownProviders,
  parseModelId,
  type ResolveModelOptions,
  resolveModel,
} from './models/resolve-model.js';
export {
  type ToAiSdkPromptOptions,
  toAiSdkPrompt,
  toAiSdkTools,
} from './models/to-ai-sdk-prompt.js';
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
// The runtime: Runner, agents, tools, plugins, compaction, replay.
export { loadActiveView } from './runtime/active-view.js';
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
export { type AgentApp, defineApp } from './runtime/app.js';
export { type ChunkProgress, SUMMARY_CHUNK_EVENTS } from './runtime/chunked-summary.js';
export {
  type CompactionOutcome,
  type CompactionReport,
  type CompactOptions,
  Compactor,
  type CompactorHooks,
  type CompactorOptions,
} from './runtime/compactor.js';
export { estimateRequestOverhead, type RequestOverhead } from './runtime/context-guard.js';
// History search: optional embeddings (hybrid ranking) over any store's searchEvents.
export type {
  EmbeddingIndex,
  GetVectorsOptions,
  IndexedVector,
  PutVectorsOptions,
} from './runtime/embeddings/embedding-index.js';
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
export {
  type ReplayCompaction,
  type ReplayElision,
  type ReplayProgress,
  type ReplayReport,
  type ReplayRequest,
  type ReplayTranscriptOptions,
  replayTranscript,
} from './runtime/replay.js';
export {
  type PricedModel,
  type ReplayCost,
  type ReplayCostFigures,
  type ReplayCostOptions,
  replayCost,
} from './runtime/replay-cost.js';
export { Runner, type RunnerOptions, type RunOptions } from './runtime/runner.js';
export type { SessionLeaseOptions } from './runtime/session-lease.js';
export type { CoolDownDetails } from './runtime/summarize-plan.js';
export {
  SummarizerCoolDown,
  type SummarizerCoolDownOptions,
  type SummarizerCoolDownReport,
  type SummarizerPermit,
} from './runtime/summarizer-cool-down.js';
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
// The storage contract, the in-memory store, and helpers for writing your own.
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
export {
  DEFAULT_LEASE_TTL_MS,
  DEFAULT_LEASE_WAIT_MS,
  type LeaseRecordOperations,
} from './sessions/lease-helpers.js';
export type {
  AddSessionToMemoryOptions,
  MemoryEntry,
  MemoryService,
  ReadMemoriesOptions,
  SearchMemoryOptions,
  SearchMemoryResponse,
} from './sessions/memory-service.js';
export { SEARCH_LANGUAGES, type SearchLanguage } from './sessions/query-terms.js';
export { type AcquireRecordLeaseOptions, acquireRecordLease } from './sessions/record-lease.js';
export {
  SessionMemoryService,
  type SessionMemoryServiceOptions,
} from './sessions/session-memory-service.js';
export type {
  AcquireLeaseOptions,
  AppendCompactionOptions,
  AppendEventOptions,
  CreateSessionOptions,
  EventPage,
  GetSessionOptions,
  ImportSessionOptions,
  ImportSessionResult,
  ListAllSessionsOptions,
  ListEventsOptions,
  ListSessionsOptions,
  SearchEventsOptions,
  SearchHit,
  SessionLease,
  SessionOverview,
  SessionService,
  SessionSummary,
  StoredView,
} from './sessions/session-service.js';
export {
  assertCompactionFits,
  assertValidNewEvent,
  mergeState,
  splitState,
  toStoredEvent,
} from './sessions/store-helpers.js';
// Summarizers.
export {
  CONVERSATION_HISTORY_PLACEHOLDER,
  DEFAULT_SUMMARY_PROMPT,
  fillPromptTemplate,
  PREVIOUS_SUMMARY_PLACEHOLDER,
} from './summarizers/default-prompt.js';
export {
  DEFAULT_DIGEST_MAX_CHARS,
  DigestSummarizer,
  type DigestSummarizerOptions,
} from './summarizers/digest-summarizer.js';
export { SummarizerError, type SummarizerErrorReason } from './summarizers/errors.js';
export {
  type FallbackSummarizer,
  type FallbackSummary,
  withFallback,
} from './summarizers/fallback-summarizer.js';
export {
  DEFAULT_MAX_INPUT_TOKENS,
  DEFAULT_SUMMARIZER_MAX_RETRIES,
  DEFAULT_SUMMARIZER_TIMEOUT_MS,
  LlmEventSummarizer,
  type LlmEventSummarizerOptions,
} from './summarizers/llm-event-summarizer.js';
export { type RenderOptions, renderEvent, renderEvents } from './summarizers/render.js';
