export { mayActAs, type Principal, TokenAuth } from './auth.js';
export { CLIENT_CLOSED_STATUS } from './client-closed.js';
export {
  type CreateServerOptions,
  createServer,
  DEFAULT_MAX_BODY_BYTES,
  type OrreryServer,
  type ServerApp,
} from './create-server.js';
export { HttpProblem, ServeConfigError, ServerDrainingError } from './errors.js';
export type {
  BranchesResponse,
  BranchRow,
  BranchTimelineResponse,
  CallRequestResponse,
  CallToolUse,
  CallTraceEntry,
  CallTraceResponse,
  CallUsage,
  ChartPoint,
  ChartResponse,
  CompactionSpan,
  InspectorInfo,
  ReplayRequest,
  ReplayResponse,
  SessionRow,
  SessionsResponse,
  StateResponse,
  StreamMessage,
  TimelineEvent,
  TimelineEventKind,
  TimelineResponse,
  ViewResponse,
} from './inspector/api-types.js';
export {
  DEFAULT_MAX_CONCURRENT_REPLAYS,
  DEFAULT_MAX_CONCURRENT_REPLAYS_PER_USER,
  type InspectorBodyReplay,
  type InspectorOptions,
  type InspectorReplay,
} from './inspector/inspector-deps.js';
export {
  MAX_REPLAY_OVERLAP_PER_INTERVAL,
  parseReplayBody,
  replayProblem,
} from './inspector/replay-request.js';
export type { ListeningServer, ShutdownReport } from './listen.js';
export { PROBLEM_CONTENT_TYPE, type ProblemBody } from './problem.js';
export { findDevUiRoot } from './routes/dev-ui.js';
export {
  DEFAULT_HOST,
  DEFAULT_PORT,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  resolveServeConfig,
  SERVE_ENV,
  type ServeConfig,
  type ServeFlags,
} from './serve-config.js';
export { parseTokens, type TokenGrant } from './tokens.js';
