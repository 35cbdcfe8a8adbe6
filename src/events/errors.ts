/**
 * Typed errors in the vercel/ai style: every error carries a marker symbol so `isInstance`
 * works across duplicated package copies, a stable `name`, and an optional `cause`.
 */

const marker = 'orrery.error';
const symbol = Symbol.for(marker);

export class OrreryError extends Error {
  protected readonly [symbol] = true;

  constructor(options: { name: string; message: string; cause?: unknown }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = options.name;
  }

  static isInstance(error: unknown): error is OrreryError {
    return OrreryError.hasMarker(error, marker);
  }

  protected static hasMarker(error: unknown, markerName: string): boolean {
    const markerSymbol = Symbol.for(markerName);
    return (
      error != null &&
      typeof error === 'object' &&
      markerSymbol in error &&
      (error as Record<symbol, unknown>)[markerSymbol] === true
    );
  }
}

const invalidEventMarker = 'orrery.error.InvalidEventError';
const invalidEventSymbol = Symbol.for(invalidEventMarker);

/** An event (or a list of them) that does not match the event model. Names the bad field. */
export class InvalidEventError extends OrreryError {
  protected readonly [invalidEventSymbol] = true;
  /** Path of the bad field, e.g. `events[12].content.parts[0]`. */
  readonly path: string;
  readonly value: unknown;

  constructor(options: { path: string; message: string; value?: unknown; cause?: unknown }) {
    super({
      name: 'InvalidEventError',
      message: `${options.path}: ${options.message}`,
      cause: options.cause,
    });
    this.path = options.path;
    this.value = options.value;
  }

  static override isInstance(error: unknown): error is InvalidEventError {
    return OrreryError.hasMarker(error, invalidEventMarker);
  }
}

const invalidArgumentMarker = 'orrery.error.InvalidArgumentError';
const invalidArgumentSymbol = Symbol.for(invalidArgumentMarker);

/** An option a function cannot use (a page size, a cursor, a session key). Names it. */
export class InvalidArgumentError extends OrreryError {
  protected readonly [invalidArgumentSymbol] = true;
  /** The option's name, e.g. `limit` or `sessionId`. */
  readonly argument: string;
  readonly value: unknown;

  constructor(options: { argument: string; message: string; value?: unknown; cause?: unknown }) {
    super({
      name: 'InvalidArgumentError',
      message: `${options.argument}: ${options.message}`,
      cause: options.cause,
    });
    this.argument = options.argument;
    this.value = options.value;
  }

  static override isInstance(error: unknown): error is InvalidArgumentError {
    return OrreryError.hasMarker(error, invalidArgumentMarker);
  }
}
