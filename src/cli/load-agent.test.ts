import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { getFunctionResponses, getText } from '../events/event-helpers.js';
import type { Event } from '../events/types.js';
import { LlmAgent } from '../runtime/agents/llm-agent.js';
import { SequentialAgent } from '../runtime/agents/sequential-agent.js';
import { Runner } from '../runtime/turn/runner.js';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import { ScriptedModel, textResponse, toolCallResponse } from '../testing/scripted-model.js';
import { AgentModuleError, loadAgentModule, loadTsImport } from './load-agent.js';

const repository = resolve(import.meta.dirname, '../..');

/** Module folders this file wrote, removed after each test. */
const directories: string[] = [];

function moduleDirectory(files: Record<string, string>): string {
  const directory = mkdtempSync(join(tmpdir(), 'orrery-agent-'));
  directories.push(directory);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(directory, name, '..'), { recursive: true });
    writeFileSync(join(directory, name), text);
  }
  return directory;
}

/** The `AgentModuleError` `loadAgentModule` throws for `path` under `cwd`. */
async function loadError(path: string, cwd: string): Promise<AgentModuleError> {
  const error = await loadAgentModule({ path, cwd }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!AgentModuleError.isInstance(error)) {
    throw new Error(`expected an AgentModuleError, got ${String(error)}`);
  }
  return error;
}

/** A plain-object agent in a `.mjs` module (no library import needed). */
const plainAgent = `export default {
  name: 'plain',
  async *runAsync() {},
};
`;

afterEach(() => {
  vi.unstubAllEnvs();
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

describe('loadAgentModule: examples/agent.ts', () => {
  it('loads the example app and runs a turn with its tools on an injected model', async () => {
    // The example builds its own model at import (from ORRERY_MODEL); --model replaces it.
    vi.stubEnv('ORRERY_MODEL', 'google:gemini-2.5-flash');
    vi.stubEnv('GEMINI_API_KEY', 'test-key-not-used');
    vi.stubEnv('EXAMPLE_AGENT_ROOT', join(repository, 'examples'));
    const model = new ScriptedModel({
      modelId: 'scripted:example',
      script: [
        toolCallResponse([
          { id: 'c1', name: 'calculate', args: { expression: '(2 + 3) * 4 ^ 2' } },
          { id: 'c2', name: 'read_file', args: { path: '../package.json' } },
          { id: 'c3', name: 'fetch_url', args: { url: 'https://example.com/' } },
        ]),
        textResponse('80; the other two were refused.'),
      ],
    });

    const app = await loadAgentModule({
      path: 'examples/agent.ts',
      cwd: repository,
      modelOverride: model,
    });

    expect(app.source).toBe(join(repository, 'examples/agent.ts'));
    expect(app.appName).toBe('workspace-helper');
    expect(app.agent.name).toBe('workspace_helper');
    expect(app.agent.model).toBe(model);
    expect(app.compaction).toMatchObject({ tokenThreshold: 60_000, eventRetentionSize: 8 });
    const sessionService = new InMemorySessionService();
    const key = { appName: app.appName, userId: 'u', sessionId: 's' };
    await sessionService.createSession(key);
    const runner = new Runner({
      appName: app.appName,
      agent: app.agent,
      sessionService,
      compaction: app.compaction,
      logger: false,
    });
    const events: Event[] = [];
    for await (const event of runner.run({ ...key, newMessage: 'What is (2+3)*4^2?' })) {
      events.push(event);
    }

    expect(model.calls[0]?.tools?.map((tool) => tool.name)).toEqual([
      'list_files',
      'read_file',
      'calculate',
      'fetch_url',
    ]);
    const responses = getFunctionResponses(events[2]!).map((response) => response.response);
    expect(responses[0]).toEqual({ value: 80 });
    expect(responses[1]).toEqual({
      error: "'../package.json' is outside the directory this agent may read",
    });
    expect(responses[2]).toEqual({
      error: 'https://example.com is not allowed (allowed: none)',
    });
    expect(getText(events.at(-1))).toBe('80; the other two were refused.');
  });
});

describe('loadAgentModule: what a module may export', () => {
  it('takes an agent as the default export; its name is the app name', async () => {
    const cwd = moduleDirectory({ 'agent.mjs': plainAgent });
    const app = await loadAgentModule({ path: './agent.mjs', cwd });
    expect(app.agent.name).toBe('plain');
    expect(app).toMatchObject({ appName: 'plain', source: join(cwd, 'agent.mjs') });
  });

  it('takes an app, in TypeScript, with its settings', async () => {
    const cwd = moduleDirectory({
      'app.mts': `const agent = { name: 'typed', async *runAsync(): AsyncGenerator<never> {} };
const plugin: { name: string } = { name: 'p' };
export default {
  agent,
  appName: 'typed-app',
  compaction: null,
  plugins: [plugin],
  sessionLease: false,
};
`,
    });
    const app = await loadAgentModule({ path: 'app.mts', cwd });
    expect(app).toMatchObject({
      appName: 'typed-app',
      compaction: null,
      plugins: [{ name: 'p' }],
      sessionLease: false,
    });
  });

  it('--model replaces the model of every LlmAgent in a sequence', () => {
    const first = new ScriptedModel({ script: [] });
    const second = new ScriptedModel({ script: [] });
    const sequence = new SequentialAgent({
      name: 'pipeline',
      subAgents: [
        new LlmAgent({ name: 'a', model: first, instruction: 'A', maxSteps: 3 }),
        new LlmAgent({ name: 'b', model: first }),
      ],
    });
    const replaced = sequence.withModel(second);
    const [a, b] = replaced.subAgents as LlmAgent[];
    expect([a?.model, b?.model]).toEqual([second, second]);
    expect([a?.instruction, a?.maxSteps]).toEqual(['A', 3]);
    expect((sequence.subAgents[0] as LlmAgent).model).toBe(first);
  });
});

describe('loadAgentModule: one clear line for a module that cannot be used', () => {
  const cases: Array<[string, Record<string, string>, string, RegExp]> = [
    ['a missing file', {}, './missing.ts', /^\.\/missing\.ts: no such file \(.*missing\.ts\)$/],
    [
      'an extension orrery does not load',
      { 'agent.json': '{}' },
      'agent.json',
      /^agent\.json: not a module orrery can load: expected a \.ts, \.mts, \.js, \.mjs file$/,
    ],
    [
      'a syntax error (named with its position)',
      { 'broken.ts': 'export default {\n  name: "x"\n  runAsync() {}\n};\n' },
      './broken.ts',
      /^\.\/broken\.ts: failed to load: \.\/broken\.ts:3:2: ERROR: Expected "}" but found "runAsync"$/,
    ],
    [
      'a module that throws at import',
      { 'throws.mjs': "throw new Error('no key for the model\\nsecond line');\n" },
      'throws.mjs',
      /^throws\.mjs: failed to load: no key for the model$/,
    ],
    [
      'a function as the default export',
      { 'factory.mjs': 'export default function createAgent() {}\n' },
      './factory.mjs',
      /^\.\/factory\.mjs: the default export must be an agent \(an object with name and runAsync\) or an app \{ agent, .*\}; got: a function$/,
    ],
    [
      'no default export',
      { 'named.mjs': 'export const agent = {};\n' },
      'named.mjs',
      /^named\.mjs: the default export must be .*; got: no default export$/,
    ],
    [
      'an app with a misspelt field',
      {
        'typo.mjs': `${plainAgent.replace('export default', 'const agent =')}export default { agent, compation: null };\n`,
      },
      'typo.mjs',
      /^typo\.mjs: the app has unknown field\(s\) compation; expected agent, appName, compaction, summarizer, plugins, sessionLease$/,
    ],
    [
      'an app whose agent is not one',
      { 'app.mjs': "export default { agent: { name: 'no-run' } };\n" },
      'app.mjs',
      /^app\.mjs: the app's agent must be an agent .*; got: an object with keys name$/,
    ],
  ];
  for (const [name, files, path, expected] of cases) {
    it(name, async () => {
      const error = await loadError(path, moduleDirectory(files));
      expect(error.message).toMatch(expected);
      expect(error.message).not.toContain('\n');
      expect(error.path).toBe(path);
    });
  }

  it('--model on an agent that cannot take one', async () => {
    const cwd = moduleDirectory({ 'agent.mjs': plainAgent });
    const error = await loadAgentModule({
      path: 'agent.mjs',
      cwd,
      modelOverride: new ScriptedModel({ script: [] }),
    }).catch((caught: unknown) => caught);
    expect(AgentModuleError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      "agent.mjs: --model cannot replace the model of agent 'plain': it has no withModel(model) method (LlmAgent and SequentialAgent have one)",
    );
  });

  it('stops on an aborted signal before importing', async () => {
    const cwd = moduleDirectory({ 'agent.mjs': plainAgent });
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    await expect(
      loadAgentModule({ path: 'agent.mjs', cwd, signal: controller.signal }),
    ).rejects.toThrow('cancelled');
  });
});

describe('loadTsImport', () => {
  it('names the command that installs tsx when it is missing', async () => {
    const missing = Object.assign(new Error("Cannot find package 'tsx'"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    const error = await loadTsImport(() => Promise.reject(missing)).then(
      () => undefined,
      (thrown: unknown) => thrown as Error,
    );
    expect(error?.message).toBe(
      "a TypeScript agent module needs the optional dependency 'tsx': npm install tsx (or compile the module to .js or .mjs)",
    );
    expect(error?.cause).toBe(missing);
  });

  it('passes any other failure through, and loads tsx when it is there', async () => {
    const broken = new Error('esbuild crashed');
    await expect(loadTsImport(() => Promise.reject(broken))).rejects.toBe(broken);
    expect(typeof (await loadTsImport())).toBe('function');
  });
});
