import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { importOptional, isModuleNotFound } from './import-optional.js';

const require = createRequire(import.meta.url);

function loadError(load: () => unknown): unknown {
  try {
    load();
  } catch (error) {
    return error;
  }
  throw new Error('expected the load to fail');
}

describe('importOptional', () => {
  it('names the package to install when it is missing', async () => {
    const notFound = loadError(() => require('@ai-sdk/not-installed'));
    const error = await importOptional({
      packageName: '@ai-sdk/not-installed',
      load: () => Promise.reject(notFound),
      toError: ({ missing }) =>
        new Error(missing ? 'npm install @ai-sdk/not-installed' : 'other failure'),
    }).catch((caught: unknown) => caught);
    expect((error as Error).message).toBe('npm install @ai-sdk/not-installed');
  });

  it('keeps other failures (a missing import inside the package is not the package missing)', async () => {
    const nested = loadError(() => require('some-inner-dependency'));
    expect(isModuleNotFound(nested, '@ai-sdk/google')).toBe(false);
    expect(isModuleNotFound(new TypeError('boom'), '@ai-sdk/google')).toBe(false);
    const error = await importOptional({
      packageName: '@ai-sdk/google',
      load: () => Promise.reject(nested),
      toError: ({ missing, cause }) => new Error(`missing=${missing}`, { cause }),
    }).catch((caught: unknown) => caught);
    expect((error as Error).message).toBe('missing=false');
    expect((error as Error).cause).toBe(nested);
  });

  it('returns the module when it loads', async () => {
    const loaded = await importOptional({
      packageName: 'x',
      load: async () => ({ value: 42 }),
      toError: () => new Error('unreachable'),
    });
    expect(loaded).toEqual({ value: 42 });
  });
});
