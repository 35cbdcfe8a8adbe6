/**
 * `orrery serve --agent` with a workflow root, as a real process (from source): the triage sweep
 * (`examples/triage-sweep/app.ts`: a `ParallelAgent` of three scripted specialists, then a lead)
 * runs over HTTP (`POST /run`), its events are stored on their branches, and `GET .../view?branch=`
 * answers the view each branch's next request would see: never a sibling's event.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../cli/in-process.js';
import { root } from '../cli/run-cli.js';

const entry = join(root, 'src', 'cli', 'entry.ts');
const app = join(root, 'examples', 'triage-sweep', 'app.ts');
/** tsx's loader by path: the scratch directory has no node_modules to find it in. */
const tsxLoader = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const STARTUP_LINE = /^orrery serve: .* on (http:\/\/\S+), /m;
const SPECIALISTS = ['network', 'database', 'deploys'];

let child: ChildProcess | undefined;
afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  child = undefined;
});

function serveEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('ORRERY_')) env[key] = value;
  }
  return env;
}

interface StoredEventJson {
  seq: number;
  author: string;
  branch?: string;
  content?: { parts: Array<Record<string, unknown>> };
  actions: Record<string, unknown>;
}

interface ViewJson {
  branch?: string;
  agent?: string;
  systemInstruction?: string;
  contents: unknown[];
  estimatedTokens: number;
}

describe('orrery serve --agent with a workflow root (ParallelAgent of specialists)', () => {
  it('runs the sweep over HTTP: branches recorded, each branch view isolated', async () => {
    const cwd = tempDir();
    const started = spawn(
      process.execPath,
      [
        '--import',
        tsxLoader,
        entry,
        'serve',
        '--port',
        '0',
        '--agent',
        app,
        '--db',
        join(cwd, 'store.db'),
      ],
      { cwd, env: serveEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = started;
    let stderr = '';
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      started.once('close', (code, signal) => resolve({ code, signal })),
    );
    const url = await new Promise<string>((resolve, reject) => {
      started.stderr?.on('data', (chunk) => {
        stderr += String(chunk);
        const match = STARTUP_LINE.exec(stderr);
        if (match) resolve(match[1]!);
      });
      void exited.then(({ code }) =>
        reject(new Error(`orrery serve exited (${code}) before its startup line: ${stderr}`)),
      );
    });
    const sessionPath = `${url}/apps/triage/users/oncall/sessions/incident-1`;
    const json = async (response: Response) => {
      expect(response.status, await response.clone().text()).toBe(200);
      return response.json();
    };
    await json(await fetch(sessionPath, { method: 'POST' }));
    const ran = (await json(
      await fetch(`${url}/run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          appName: 'triage',
          userId: 'oncall',
          sessionId: 'incident-1',
          newMessage: { role: 'user', parts: [{ text: 'Checkout is failing: triage.' }] },
        }),
      }),
    )) as Array<{ author: string; branch?: string }>;
    expect(ran.at(-1)?.author).toBe('lead');
    expect(new Set(ran.map((event) => event.branch).filter(Boolean))).toEqual(
      new Set(SPECIALISTS.map((name) => `sweep.${name}`)),
    );

    // Every event stored, on its branch: 30 pages read, whole; each branch compacted on its own.
    const { events } = (await json(await fetch(`${sessionPath}/events?limit=1000`))) as {
      events: StoredEventJson[];
    };
    for (const name of SPECIALISTS) {
      const own = events.filter((event) => event.branch === `sweep.${name}`);
      const work = own.filter((event) => !event.actions.branchCompaction);
      expect(work.every((event) => event.author === name)).toBe(true);
      const pages = own.filter((event) =>
        event.content?.parts.some(
          (part) => (part.functionResponse as { name?: string } | undefined)?.name === 'read_page',
        ),
      );
      expect(pages).toHaveLength(10);
      expect(own.some((event) => event.actions.branchCompaction)).toBe(true);
    }
    expect(events.some((event) => event.actions.compaction)).toBe(false);

    // Each branch's next-request view: its own evidence, never a sibling's page, call or answer.
    for (const name of SPECIALISTS) {
      const view = (await json(
        await fetch(`${sessionPath}/view?branch=sweep.${name}`),
      )) as ViewJson;
      expect(view).toMatchObject({ branch: `sweep.${name}`, agent: name });
      expect(view.systemInstruction).toContain(`You are the ${name} specialist.`);
      const text = JSON.stringify(view.contents);
      expect(text).toContain(`FINDING(${name})`);
      for (const sibling of SPECIALISTS.filter((other) => other !== name)) {
        expect(text).not.toContain(`EVIDENCE<${sibling}>`);
        expect(text).not.toContain(`${sibling}-read-`);
        expect(text).not.toContain(`FINDING(${sibling})`);
      }
      expect(view.estimatedTokens).toBeLessThan(12_000 + 4_000);
    }
    // The trunk (`?branch=`): every final answer, verbatim, and no page.
    const trunk = (await json(await fetch(`${sessionPath}/view?branch=`))) as ViewJson;
    expect(trunk.branch).toBe('');
    const trunkText = JSON.stringify(trunk.contents);
    for (const name of SPECIALISTS) {
      expect(trunkText).toContain(`FINDING(${name}): ${name} read 10 pages;`);
      expect(trunkText).not.toContain(`EVIDENCE<${name}>`);
    }
    // Without `branch` the route keeps its unscoped answer (every branch's events).
    const whole = (await json(await fetch(`${sessionPath}/view`))) as ViewJson;
    expect(whole.branch).toBeUndefined();
    for (const name of SPECIALISTS)
      expect(JSON.stringify(whole.contents)).toContain(`EVIDENCE<${name}>`);

    started.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
  }, 180_000);
});
