/**
 * The example agent's tools (examples/agent.ts): real, and safe by construction. Files are read
 * only under one directory (symlinks out of it refused), arithmetic is parsed (never `eval`),
 * and URLs are fetched only from origins the operator listed (none by default: no network).
 */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import { FunctionTool } from '../src/index.js';

const MAX_FILE_BYTES = 64 * 1024;
const MAX_FETCH_BYTES = 64 * 1024;
const FETCH_TIMEOUT_MS = 10_000;

/** `path` inside `root`, symlinks resolved; anything outside is refused. */
async function insideRoot(root: string, path: string): Promise<string> {
  const realRoot = await realpath(root);
  const target = await realpath(resolve(realRoot, path));
  const rest = relative(realRoot, target);
  if (rest === '..' || rest.startsWith(`..${sep}`) || isAbsolute(rest)) {
    throw new Error(`'${path}' is outside the directory this agent may read`);
  }
  return target;
}

export function fileTools(root: string): FunctionTool<z.ZodType>[] {
  const listFiles = new FunctionTool({
    name: 'list_files',
    description: `Lists the entries of a directory under the workspace (paths relative to it; '.' is the workspace).`,
    parameters: z.object({ path: z.string().default('.') }),
    execute: async ({ path }) => {
      const directory = await insideRoot(root, path);
      const entries = await readdir(directory, { withFileTypes: true });
      return {
        entries: entries
          .slice(0, 200)
          .map((entry) => `${entry.name}${entry.isDirectory() ? '/' : ''}`),
        truncated: entries.length > 200,
      };
    },
  });
  const readTextFile = new FunctionTool({
    name: 'read_file',
    description: `Reads a text file under the workspace (first ${MAX_FILE_BYTES / 1024} KB).`,
    parameters: z.object({ path: z.string() }),
    execute: async ({ path }) => {
      const file = await insideRoot(root, path);
      const info = await stat(file);
      if (!info.isFile()) throw new Error(`'${path}' is not a file`);
      const bytes = await readFile(file);
      return {
        text: bytes.subarray(0, MAX_FILE_BYTES).toString('utf8'),
        bytes: info.size,
        truncated: info.size > MAX_FILE_BYTES,
      };
    },
  });
  return [listFiles, readTextFile] as FunctionTool<z.ZodType>[];
}

/** `+ - * / % ^`, parentheses, unary minus and decimal numbers, by recursive descent. */
export function evaluateArithmetic(expression: string): number {
  const tokens = expression.match(/\d+(?:\.\d+)?(?:e[+-]?\d+)?|[-+*/%^()]|\S/gi) ?? [];
  let position = 0;
  const peek = () => tokens[position];
  const take = () => tokens[position++];
  const primary = (): number => {
    const token = take();
    if (token === '(') {
      const value = sum();
      if (take() !== ')') throw new Error('missing )');
      return value;
    }
    if (token === '-') return -primary();
    if (token === '+') return primary();
    if (token !== undefined && /^\d/.test(token)) return Number(token);
    throw new Error(token === undefined ? 'unexpected end' : `unexpected '${token}'`);
  };
  const power = (): number => {
    const base = primary();
    if (peek() === '^') {
      take();
      return base ** power();
    }
    return base;
  };
  const product = (): number => {
    let value = power();
    while (peek() === '*' || peek() === '/' || peek() === '%') {
      const operator = take();
      const right = power();
      value = operator === '*' ? value * right : operator === '/' ? value / right : value % right;
    }
    return value;
  };
  const sum = (): number => {
    let value = product();
    while (peek() === '+' || peek() === '-') {
      value = take() === '+' ? value + product() : value - product();
    }
    return value;
  };
  const value = sum();
  if (position < tokens.length) throw new Error(`unexpected '${tokens[position]}'`);
  if (!Number.isFinite(value)) throw new Error('the result is not a finite number');
  return value;
}

export const calculator = new FunctionTool({
  name: 'calculate',
  description: 'Evaluates an arithmetic expression: + - * / % ^ and parentheses.',
  parameters: z.object({ expression: z.string().max(500) }),
  execute: async ({ expression }) => ({ value: evaluateArithmetic(expression) }),
});

/** Fetches a URL whose origin is in `allowedOrigins` (e.g. `http://localhost:8080`). */
export function fetchTool(allowedOrigins: readonly string[]): FunctionTool<z.ZodType> {
  return new FunctionTool({
    name: 'fetch_url',
    description:
      allowedOrigins.length === 0
        ? 'Fetches a URL. No origin is allowed in this setup: it always refuses.'
        : `Fetches a URL (GET) from one of: ${allowedOrigins.join(', ')}.`,
    parameters: z.object({ url: z.string() }),
    execute: async ({ url }, context) => {
      const origin = new URL(url).origin;
      if (!allowedOrigins.includes(origin)) {
        throw new Error(
          `${origin} is not allowed (allowed: ${allowedOrigins.join(', ') || 'none'})`,
        );
      }
      const signal = AbortSignal.any([
        AbortSignal.timeout(FETCH_TIMEOUT_MS),
        ...(context.signal ? [context.signal] : []),
      ]);
      const response = await fetch(url, { signal, redirect: 'error' });
      const text = (await response.text()).slice(0, MAX_FETCH_BYTES);
      return { status: response.status, text };
    },
  }) as FunctionTool<z.ZodType>;
}
