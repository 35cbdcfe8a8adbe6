/**
 * The gateway's typed errors. A `GatewayRequestError` is a client request the gateway refuses
 * before anything is forwarded; the client gets it in its provider's error shape
 * (`openai-errors.ts`), naming the bad field and value.
 */
import { OrreryError } from '../events/errors.js';

const requestMarker = 'orrery.error.GatewayRequestError';
const requestSymbol = Symbol.for(requestMarker);

export class GatewayRequestError extends OrreryError {
  protected readonly [requestSymbol] = true;
  /** e.g. `messages[3].tool_calls[0]` or the `x-orrery-session` header. */
  readonly field: string;
  readonly value: unknown;
  /** HTTP status of the answer (400 unless said). */
  readonly status: number;

  constructor(options: {
    field: string;
    value: unknown;
    message: string;
    status?: number;
    cause?: unknown;
  }) {
    super({
      name: 'GatewayRequestError',
      message: `${options.field}: ${options.message} (got ${describe(options.value)})`,
      cause: options.cause,
    });
    this.field = options.field;
    this.value = options.value;
    this.status = options.status ?? 400;
  }

  static override isInstance(error: unknown): error is GatewayRequestError {
    return OrreryError.hasMarker(error, requestMarker);
  }
}

/** A short description of a bad value (never a whole message body). */
function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
