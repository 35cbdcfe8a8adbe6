/**
 * What `npm install` of orrery brings into a user's project: the closure of `dependencies`
 * (with their own optional dependencies, which npm installs by default) as package-lock.json
 * resolves it. Nothing in it runs an install script, so nothing compiles (better-sqlite3 built
 * from source for 6 minutes where no prebuilt binary could be fetched). SQLite, PostgreSQL and
 * tsx are optional peers, each installed by its own command.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

interface LockEntry {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  hasInstallScript?: boolean;
}
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

/** The lock path `name` resolves to from the package at `from` (node's lookup, upwards). */
function resolveIn(from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base === '' ? '' : `${base}/`}node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (base === '') return undefined;
    const index = base.lastIndexOf('/node_modules/');
    base = index < 0 ? '' : base.slice(0, index);
  }
}

/** Every package a user's install of orrery gets: its dependencies, transitively. */
function installClosure(): Set<string> {
  const seen = new Set<string>();
  const queue = Object.keys(manifest.dependencies ?? {}).concat(
    Object.keys(manifest.optionalDependencies ?? {}),
  );
  const pending = queue.map((name) => resolveIn('', name));
  while (pending.length > 0) {
    const path = pending.pop();
    if (path === undefined || seen.has(path)) continue;
    seen.add(path);
    const entry = lock.packages[path] ?? {};
    for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
      pending.push(resolveIn(path, name));
    }
  }
  return seen;
}

describe("a user's install of orrery", () => {
  it('runs no install script (nothing compiles)', () => {
    const closure = installClosure();
    expect(closure.size).toBeGreaterThan(10);
    const scripted = [...closure].filter((path) => lock.packages[path]?.hasInstallScript);
    expect(scripted).toEqual([]);
    // The check can fail: a clone's devDependencies do run install scripts.
    expect(lock.packages['node_modules/better-sqlite3']?.hasInstallScript).toBe(true);
  });

  it('SQLite, PostgreSQL and tsx are optional peers, installed in a clone for the tests', () => {
    for (const name of ['better-sqlite3', 'pg', 'tsx']) {
      expect(manifest.dependencies[name], name).toBeUndefined();
      expect(manifest.optionalDependencies?.[name], name).toBeUndefined();
      expect(manifest.peerDependenciesMeta[name], name).toEqual({ optional: true });
      expect(manifest.devDependencies[name], name).toBeDefined();
    }
  });

  it('host library ranges stay on lines that run on Node 20', () => {
    // @openai/agents 0.15 and later depend on openai@7, which needs Node >= 22.
    expect(manifest.peerDependencies['@openai/agents']).toBe('>=0.14.0 <0.15.0');
    // ai@7 needs Node >= 22 and a newer provider spec than the middleware implements.
    expect(manifest.peerDependencies.ai).toBe('^6.0.0');
    expect(manifest.engines.node).toBe('>=20.19');
  });
});
