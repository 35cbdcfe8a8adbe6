/** Shared by the provider fixture tests: a resolved model over recorded fixtures, and checks. */
import { expect } from 'vitest';
import { ModelError } from '../errors.js';
import { resolveModel } from '../resolve-model.js';
import type { Model } from '../types.js';
import { type Fixture, fixtureFetch, type RecordedRequest } from './fixture-fetch.js';
import { testEnv } from './travel-request.js';

export async function connect(
  modelId: string,
  fixtures: Fixture[],
  env: Record<string, string> = testEnv,
): Promise<{ model: Model; requests: RecordedRequest[] }> {
  const { fetch, requests } = fixtureFetch(...fixtures);
  const model = await resolveModel({ modelId, env, fetch });
  return { model, requests };
}

export function expectRecordedRequest(
  recorded: RecordedRequest | undefined,
  fixture: Fixture,
): void {
  const expected = fixture.request;
  if (expected === undefined) throw new Error('fixture has no request');
  expect(recorded?.method).toBe(expected.method);
  expect(recorded?.url).toBe(expected.url);
  expect(recorded?.headers).toMatchObject(expected.headers ?? {});
  expect(recorded?.body).toMatchObject(expected.body as Record<string, unknown>);
}

export async function modelErrorOf(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  if (!ModelError.isInstance(error)) throw new Error(`expected a ModelError, got ${String(error)}`);
  return error;
}
