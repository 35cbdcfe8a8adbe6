/**
 * An integer query (or path) parameter within bounds, for every route that takes one (orrery's
 * session routes, the inspector's): absent is `undefined`, anything else out of place is a 400
 * naming the parameter and the value. See docs/architecture.md#inspector.
 */
import { badRequest } from './problem.js';

/** An integer query parameter within bounds, or `undefined` when absent; else a 400. */
export function integerQuery(options: {
  value: string | undefined;
  name: string;
  minimum: number;
  maximum?: number;
}): number | undefined {
  const { value, name, minimum, maximum } = options;
  if (value === undefined) return undefined;
  const number = Number(value);
  if (
    value.trim() === '' ||
    !Number.isInteger(number) ||
    number < minimum ||
    (maximum !== undefined && number > maximum)
  ) {
    const range = maximum === undefined ? `>= ${minimum}` : `from ${minimum} to ${maximum}`;
    throw badRequest(`${name} must be an integer ${range}, got ${JSON.stringify(value)}`, name);
  }
  return number;
}
