/**
 * The server's typed errors: an `HttpProblem` is what a request gets back (RFC 9457), a
 * `ServeConfigError` is a setting `orrery serve` cannot start with (exit code 2).
 */
import { OrreryError } from '../events/errors.js';

const problemMarker = 'orrery.error.HttpProblem';
const problemSymbol = Symbol.for(problemMarker);

/** A request the server answers with an error status and an `application/problem+json` body. */
export class HttpProblem extends OrreryError {
  protected readonly [problemSymbol] = true;
  readonly status: number;
  /** A short slug: the problem `type` is `urn:orrery:problem:<slug>`. */
  readonly slug: string;
  readonly title: string;
  /** The bad request field, e.g. `newMessage.parts[0]` or the `afterSeq` query parameter. */
  readonly field?: string;
  /** Response headers the problem needs (e.g. `retry-after` on a 429). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The detail is the server's own text (no error message, URL or value in it): answered as
   * written, not through the credential masks (they would eat help text such as "Bearer <token>").
   */
  readonly ownText: boolean;

  constructor(options: {
    status: number;
    slug: string;
    title: string;
    detail: string;
    field?: string;
    headers?: Record<string, string>;
    ownText?: boolean;
    cause?: unknown;
  }) {
    super({ name: 'HttpProblem', message: options.detail, cause: options.cause });
    this.status = options.status;
    this.slug = options.slug;
    this.title = options.title;
    this.field = options.field;
    this.headers = options.headers;
    this.ownText = options.ownText ?? false;
  }

  static override isInstance(error: unknown): error is HttpProblem {
    return OrreryError.hasMarker(error, problemMarker);
  }
}

const configMarker = 'orrery.error.ServeConfigError';
const configSymbol = Symbol.for(configMarker);

/** A server setting that cannot be used. `field` names the flag or variable to fix. */
export class ServeConfigError extends OrreryError {
  protected readonly [configSymbol] = true;
  /** e.g. `--port` or `ORRERY_SERVE_PORT`. */
  readonly field: string;

  constructor(options: { field: string; message: string; cause?: unknown }) {
    super({
      name: 'ServeConfigError',
      message: `${options.field}: ${options.message}`,
      cause: options.cause,
    });
    this.field = options.field;
  }

  static override isInstance(error: unknown): error is ServeConfigError {
    return OrreryError.hasMarker(error, configMarker);
  }
}

const drainingMarker = 'orrery.error.ServerDrainingError';
const drainingSymbol = Symbol.for(drainingMarker);

/** A run refused (or stopped at the deadline) because the server is shutting down: a 503. */
export class ServerDrainingError extends HttpProblem {
  protected readonly [drainingSymbol] = true;

  constructor(options: { aborted?: boolean } = {}) {
    super({
      status: 503,
      slug: 'shutting-down',
      title: 'Service Unavailable',
      detail: options.aborted
        ? 'the server is shutting down and stopped this run at its deadline; the events it stored are kept'
        : 'the server is shutting down: retry (another replica, or this one once restarted)',
    });
    this.name = 'ServerDrainingError';
  }

  static override isInstance(error: unknown): error is ServerDrainingError {
    return OrreryError.hasMarker(error, drainingMarker);
  }
}
