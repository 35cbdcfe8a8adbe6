import type { ToolState } from '../tools/tool.js';

/** Session state as of the invocation's start, with the stored events' deltas applied. */
export class InvocationState implements ToolState {
  private readonly values: Record<string, unknown>;

  constructor(initial: Record<string, unknown>) {
    this.values = { ...initial };
  }

  get<T = unknown>(key: string): T | undefined {
    return this.values[key] as T | undefined;
  }

  has(key: string): boolean {
    return Object.hasOwn(this.values, key);
  }

  /** Direct writes bypass the store: agents record state through an event's `stateDelta`. */
  set(key: string, value: unknown): void {
    this.values[key] = value;
  }

  applyDelta(delta: Record<string, unknown> | undefined): void {
    if (delta) Object.assign(this.values, delta);
  }

  toObject(): Record<string, unknown> {
    return { ...this.values };
  }
}

/** One tool call's view of state: reads fall through to the invocation, writes are a delta. */
export class ToolStateDelta implements ToolState {
  readonly delta: Record<string, unknown> = {};

  constructor(private readonly base: ToolState) {}

  get<T = unknown>(key: string): T | undefined {
    return (Object.hasOwn(this.delta, key) ? this.delta[key] : this.base.get(key)) as T | undefined;
  }

  has(key: string): boolean {
    return Object.hasOwn(this.delta, key) || this.base.has(key);
  }

  set(key: string, value: unknown): void {
    this.delta[key] = value;
  }

  toObject(): Record<string, unknown> {
    return { ...this.base.toObject(), ...this.delta };
  }
}
