/**
 * An agent module for the CLI: `orrery chat --agent examples/agent.ts` (or `run`, or `serve`).
 * Its default export is an app (`defineApp`): the agent and the Runner settings that go with it.
 *
 *   ORRERY_MODEL=google:gemini-2.5-flash GEMINI_API_KEY=... node bin/orrery.js chat --agent examples/agent.ts
 *
 * Tools: list and read files under EXAMPLE_AGENT_ROOT (default: the current directory), a
 * calculator, and fetch_url for the origins in EXAMPLE_AGENT_FETCH_ORIGINS (comma-separated,
 * e.g. `http://localhost:8080`; none by default, so no network). The model is ORRERY_MODEL's,
 * built when the module loads (so its key must be set); `--model ID` replaces it.
 * In your own project, import from 'orrery' instead of '../src/index.js'.
 */
import { DigestSummarizer, defineApp, LlmAgent, resolveModel } from '../src/index.js';
import { calculator, fetchTool, fileTools } from './agent-tools.js';

const modelId = process.env.ORRERY_MODEL;
if (!modelId) {
  throw new Error('set ORRERY_MODEL to a provider:model id, e.g. google:gemini-2.5-flash');
}
const root = process.env.EXAMPLE_AGENT_ROOT ?? process.cwd();
const origins = (process.env.EXAMPLE_AGENT_FETCH_ORIGINS ?? '')
  .split(',')
  .map((origin) => origin.trim())
  .filter((origin) => origin !== '');

export default defineApp({
  appName: 'workspace-helper',
  agent: new LlmAgent({
    name: 'workspace_helper',
    model: await resolveModel({ modelId, env: process.env }),
    instruction: `You help with the files under ${root}. Read them with list_files and read_file before answering about them; use calculate for arithmetic. Answer concisely and name the files you used.`,
    tools: [...fileTools(root), calculator, fetchTool(origins)],
    maxSteps: 12,
  }),
  // Summarize once the next request would pass 60k tokens, keeping the last 8 events verbatim;
  // the digest summarizer needs no model call (drop it to summarize with the model).
  compaction: { tokenThreshold: 60_000, eventRetentionSize: 8, summarizer: new DigestSummarizer() },
});
