export * from './agents/agent.js';
export {
  type ControlTool,
  createExitLoopTool,
  createTransferTool,
  isControlTool,
  TRANSFER_TO_AGENT,
} from './agents/control-tools.js';
export * from './agents/llm-agent.js';
export * from './agents/loop-agent.js';
export * from './agents/parallel-agent.js';
export * from './agents/sequential-agent.js';
export { findAgent, usesBranches } from './agents/sub-agents.js';
export * from './compaction/compactor.js';
export * from './compaction/context-guard.js';
export * from './errors.js';
export * from './plugins/index.js';
export * from './replay/replay.js';
export * from './tools/agent-tool.js';
export * from './tools/from-ai-sdk-tool.js';
export * from './tools/function-tool.js';
export * from './tools/memory-tools.js';
export * from './tools/to-json-value.js';
export type * from './tools/tool.js';
export type {
  JsonSchemaParameters,
  StandardSchemaV1,
  ToolArguments,
  ToolParameters,
} from './tools/tool-parameters.js';
export * from './turn/app.js';
export * from './turn/runner.js';
export type { SessionLeaseOptions } from './turn/session-lease.js';
export * from './view/active-view.js';
