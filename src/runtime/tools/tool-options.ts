/**
 * Checks of a tool factory's numeric options (`recall`, `load_memory`): an absent option takes
 * its default; a bad one is a `RunnerConfigError` naming the option and its value.
 */
import { RunnerConfigError } from '../errors.js';

export function positiveInteger(
  field: string,
  value: number | undefined,
  fallback: number,
): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved < 1) {
    throw new RunnerConfigError({ field, value, message: 'must be a positive integer' });
  }
  return resolved;
}

export function nonNegativeInteger(
  field: string,
  value: number | undefined,
  fallback: number,
): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved < 0) {
    throw new RunnerConfigError({ field, value, message: 'must be an integer >= 0' });
  }
  return resolved;
}
