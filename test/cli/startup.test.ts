/**
 * Start-up loads what the command uses: `--help` and a replay import none of the server, the
 * metrics, the logger, OpenTelemetry, the AI SDK or a database driver. Checked by spawning the
 * CLI from source with a module hook that records every package it imports.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { root, scratch } from './run-cli.js';

/** tsx's loader by path: the scratch directory the CLI runs in has no node_modules. */
const tsxLoader = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

/** Packages no command but chat, run, serve (and a model summarizer) may load. */
const HEAVY = [
  'zod',
  'prom-client',
  'pino',
  'hono',
  '@hono/node-server',
  '@opentelemetry/api',
  'ai',
  '@ai-sdk/provider',
  '@ai-sdk/google',
  '@ai-sdk/openai',
  '@ai-sdk/anthropic',
  'pg',
  'better-sqlite3',
];

/** Bare package specifiers the CLI imported (from our own code) while running `args`. */
function packagesImported(args: string[]): { code: number; packages: string[] } {
  const directory = scratch();
  const log = join(directory, 'imports.log');
  const hooks = join(directory, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  if (!specifier.startsWith('.') && !specifier.startsWith('node:') && !specifier.startsWith('file:') && context.parentURL?.includes('/src/')) {
    appendFileSync(${JSON.stringify(log)}, specifier + '\\n');
  }
  return next(specifier, context);
}`,
  );
  const register = join(directory, 'register.mjs');
  writeFileSync(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  writeFileSync(log, '');
  const result = spawnSync(
    process.execPath,
    ['--import', tsxLoader, '--import', register, join(root, 'src', 'cli', 'entry.ts'), ...args],
    { cwd: directory, encoding: 'utf8', timeout: 120_000 },
  );
  const packages = [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))];
  return { code: result.status ?? -1, packages: packages.sort() };
}

/** A two-message Claude Code session (JSONL), as `claude` writes it. */
function claudeCodeLines(): string[] {
  const base = { sessionId: 'startup', cwd: '/tmp', isSidechain: false, userType: 'external' };
  return [
    {
      ...base,
      type: 'user',
      uuid: 'u1',
      parentUuid: null,
      timestamp: '2025-06-11T14:22:31.625Z',
      message: { role: 'user', content: 'hi' },
    },
    {
      ...base,
      type: 'assistant',
      uuid: 'a1',
      parentUuid: 'u1',
      timestamp: '2025-06-11T14:22:33.000Z',
      message: {
        id: 'm1',
        role: 'assistant',
        model: 'claude',
        content: [{ type: 'text', text: 'hello' }],
      },
    },
  ].map((line) => JSON.stringify(line));
}

describe('start-up', () => {
  it('--help loads commander alone', () => {
    const { code, packages } = packagesImported(['--help']);
    expect(code).toBe(0);
    expect(packages).toEqual(['commander']);
  }, 120_000);

  it('a replay loads none of the server, metrics, logger, telemetry, AI SDK, drivers or zod', () => {
    const directory = scratch();
    const chat = join(directory, 'chat.json');
    writeFileSync(
      chat,
      JSON.stringify([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ]),
    );
    const claudeCode = join(directory, 'session.jsonl');
    writeFileSync(claudeCode, claudeCodeLines().join('\n'));
    for (const transcript of [chat, claudeCode]) {
      const { code, packages } = packagesImported(['replay', transcript, '--json']);
      expect(code).toBe(0);
      // zod comes with the ADK codec, which replay imports only for an ADK transcript.
      expect(packages.filter((name) => HEAVY.includes(name))).toEqual([]);
    }
  }, 240_000);

  it('a replay of an ADK session loads zod (the check above can fail)', () => {
    const directory = scratch();
    const adk = join(directory, 'session.json');
    writeFileSync(
      adk,
      JSON.stringify({
        id: 's1',
        appName: 'app',
        userId: 'u',
        events: [
          {
            id: 'e1',
            invocationId: 'i1',
            author: 'user',
            timestamp: 1,
            content: { role: 'user', parts: [{ text: 'hi' }] },
          },
          {
            id: 'e2',
            invocationId: 'i1',
            author: 'agent',
            timestamp: 2,
            content: { role: 'model', parts: [{ text: 'hello' }] },
          },
        ],
      }),
    );
    const { code, packages } = packagesImported(['replay', adk, '--json']);
    expect(code).toBe(0);
    expect(packages).toContain('zod');
  }, 120_000);
});
