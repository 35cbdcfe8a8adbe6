/**
 * `--agent PATH`: a module whose default export is an agent (anything with `name` and
 * `runAsync`, e.g. an `LlmAgent`) or an app `{ agent, appName?, compaction?, summarizer?,
 * plugins?, sessionLease? }` (`defineApp`). `.js`/`.mjs` load with `import()`; `.ts`/`.mts`
 * through tsx's `tsImport`, imported only for them.
 */
import { stat } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EventsCompactionConfig, EventsSummarizer } from '../compaction/types.js';
import type { Model } from '../models/types.js';
import type { Agent } from '../runtime/agents/agent.js';
import type { Plugin } from '../runtime/plugins/plugin.js';
import { AGENT_APP_FIELDS, type AgentApp } from '../runtime/turn/app.js';
import type { SessionLeaseOptions } from '../runtime/turn/session-lease.js';
import { errorMessage } from '../util/error-message.js';
import { AgentModuleError } from './agent-module-error.js';

export { AgentModuleError };

export interface LoadAgentModuleOptions {
  /** The module's path, relative to `cwd` or absolute. */
  path: string;
  /** Default: `process.cwd()`. */
  cwd?: string;
  signal?: AbortSignal;
  /**
   * Replaces the model of the module's agents (the CLI's `--model`): the root must have
   * `withModel(model)` (`LlmAgent` and `SequentialAgent` do; a sequence passes it to each
   * sub-agent that has one).
   */
  modelOverride?: Model;
}

/** An `AgentApp` as loaded: the app name resolved, and the file it came from. */
export interface LoadedApp extends AgentApp {
  /** The app's `appName`, default the agent's name. */
  appName: string;
  /** The resolved file path. */
  source: string;
}

const EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'];
const TYPESCRIPT = new Set(['.ts', '.mts']);
const EXPECTED =
  'the default export must be an agent (an object with name and runAsync) or an app { agent, appName?, compaction?, summarizer?, plugins?, sessionLease? }';

export async function loadAgentModule(options: LoadAgentModuleOptions): Promise<LoadedApp> {
  const { path } = options;
  const source = resolve(options.cwd ?? process.cwd(), path);
  const extension = extname(source);
  if (!EXTENSIONS.includes(extension)) {
    throw new AgentModuleError({
      path,
      message: `not a module orrery can load: expected a ${EXTENSIONS.join(', ')} file`,
    });
  }
  await checkFile(path, source);
  options.signal?.throwIfAborted();
  const exported = await importModule(path, source, TYPESCRIPT.has(extension));
  options.signal?.throwIfAborted();
  const app = toLoadedApp(path, source, exported);
  if (options.modelOverride) app.agent = withModel(path, app.agent, options.modelOverride);
  return app;
}

async function checkFile(path: string, source: string): Promise<void> {
  try {
    if (!(await stat(source)).isFile()) {
      throw new AgentModuleError({ path, message: `is not a file (${source})` });
    }
  } catch (error) {
    if (AgentModuleError.isInstance(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new AgentModuleError({
      path,
      message:
        code === 'ENOENT' ? `no such file (${source})` : `cannot be read: ${firstLine(error)}`,
      loadError: error,
    });
  }
}

type TsImport = typeof import('tsx/esm/api')['tsImport'];

/**
 * tsx's `tsImport`. tsx is an optional peer dependency (only TypeScript agent modules need it),
 * so a missing one names the command that installs it. `importTsx` is for tests.
 */
export async function loadTsImport(
  importTsx: () => Promise<{ tsImport: TsImport }> = () => import('tsx/esm/api'),
): Promise<TsImport> {
  try {
    return (await importTsx()).tsImport;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw error;
    throw new Error(
      "a TypeScript agent module needs the optional dependency 'tsx': npm install tsx (or compile the module to .js or .mjs)",
      { cause: error },
    );
  }
}

/** The module's default export (`undefined` when it has none). */
async function importModule(path: string, source: string, typescript: boolean): Promise<unknown> {
  const url = pathToFileURL(source).href;
  let namespace: Record<string, unknown>;
  try {
    if (typescript) {
      // Loaded only for TypeScript agents: `.js` ones never pay for esbuild.
      const tsImport = await loadTsImport();
      namespace = await tsImport(url, { parentURL: import.meta.url });
    } else {
      namespace = await import(url);
    }
  } catch (error) {
    throw new AgentModuleError({
      path,
      message: `failed to load: ${firstLine(error, source, path)}`,
      loadError: error,
    });
  }
  return namespace.default;
}

/**
 * The first line of a loader's error that says something: esbuild opens with "Transform failed
 * with 1 error:", the line after it names the position. The absolute path reads as given.
 */
function firstLine(error: unknown, source?: string, path?: string): string {
  const text = errorMessage(error);
  const lines = text.split('\n').map((line) => line.trim());
  const meaningful = lines.filter((line) => line !== '' && !/^Transform failed with/.test(line));
  const line = meaningful[0] ?? lines[0] ?? '';
  return source && path ? line.split(source).join(path) : line;
}

function isAgent(value: unknown): value is Agent {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Agent).name === 'string' &&
    typeof (value as Agent).runAsync === 'function'
  );
}

function describe(value: unknown): string {
  if (value === undefined) return 'no default export';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'function') return 'a function';
  if (typeof value !== 'object') return `a ${typeof value}`;
  const keys = Object.keys(value);
  return keys.length === 0 ? 'an empty object' : `an object with keys ${keys.join(', ')}`;
}

function toLoadedApp(path: string, source: string, exported: unknown): LoadedApp {
  const fail = (message: string): never => {
    throw new AgentModuleError({ path, message });
  };
  if (isAgent(exported)) return { agent: exported, appName: exported.name, source };
  if (typeof exported !== 'object' || exported === null || !('agent' in exported)) {
    return fail(`${EXPECTED}; got: ${describe(exported)}`);
  }
  const app = exported as Record<string, unknown>;
  const unknown = Object.keys(app).filter(
    (key) => !(AGENT_APP_FIELDS as readonly string[]).includes(key),
  );
  if (unknown.length > 0) {
    fail(
      `the app has unknown field(s) ${unknown.join(', ')}; expected ${AGENT_APP_FIELDS.join(', ')}`,
    );
  }
  const { agent, appName, compaction, summarizer, plugins, sessionLease } = app;
  if (!isAgent(agent)) {
    fail(
      `the app's agent must be an agent (an object with name and runAsync); got: ${describe(agent)}`,
    );
  }
  if (appName !== undefined && (typeof appName !== 'string' || appName.trim() === '')) {
    fail(`the app's appName must be a non-empty string; got: ${JSON.stringify(appName)}`);
  }
  if (compaction !== undefined && compaction !== null && !isPlainObject(compaction)) {
    fail(`the app's compaction must be a config object or null; got: ${describe(compaction)}`);
  }
  if (
    summarizer !== undefined &&
    (!isPlainObjectLike(summarizer) || typeof summarizer.summarize !== 'function')
  ) {
    fail(`the app's summarizer must have a summarize method; got: ${describe(summarizer)}`);
  }
  if (plugins !== undefined) {
    const valid =
      Array.isArray(plugins) &&
      plugins.every((plugin) => isPlainObjectLike(plugin) && typeof plugin.name === 'string');
    if (!valid) fail(`the app's plugins must be an array of plugins (objects with a name)`);
  }
  if (sessionLease !== undefined && sessionLease !== false && !isPlainObject(sessionLease)) {
    fail(
      `the app's sessionLease must be false or { waitMs?, ttlMs? }; got: ${describe(sessionLease)}`,
    );
  }
  const loaded: LoadedApp = {
    agent: agent as Agent,
    appName: (appName as string | undefined) ?? (agent as Agent).name,
    source,
  };
  if (compaction !== undefined) loaded.compaction = compaction as EventsCompactionConfig | null;
  if (summarizer !== undefined) loaded.summarizer = summarizer as EventsSummarizer;
  if (plugins !== undefined) loaded.plugins = plugins as Plugin[];
  if (sessionLease !== undefined) loaded.sessionLease = sessionLease as SessionLeaseOptions | false;
  return loaded;
}

function isPlainObjectLike(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (!isPlainObjectLike(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function withModel(path: string, agent: Agent, model: Model): Agent {
  if (typeof agent.withModel !== 'function') {
    throw new AgentModuleError({
      path,
      message: `--model cannot replace the model of agent '${agent.name}': it has no withModel(model) method (LlmAgent and SequentialAgent have one)`,
    });
  }
  return agent.withModel(model);
}
