import { OrreryError } from '../events/errors.js';
import { maskCredentials } from '../redaction/index.js';

const agentModuleMarker = 'orrery.error.AgentModuleError';
const agentModuleSymbol = Symbol.for(agentModuleMarker);

/**
 * `--agent PATH` names a module that cannot be used: missing, not a module orrery loads, failing
 * to load, or whose default export is not an agent or an app. One line naming the file.
 */
export class AgentModuleError extends OrreryError {
  protected readonly [agentModuleSymbol] = true;
  /** The path as given (`./agent.ts`). */
  readonly path: string;
  /**
   * What the loader threw, when it threw (kept out of `cause` so the CLI prints one line, not
   * a compiler's whole report).
   */
  readonly loadError?: unknown;

  constructor(options: { path: string; message: string; loadError?: unknown }) {
    // A module's error may quote a URL with credentials (a store it connects to at import).
    super({
      name: 'AgentModuleError',
      message: maskCredentials(`${options.path}: ${options.message}`),
    });
    this.path = options.path;
    this.loadError = options.loadError;
  }

  static override isInstance(error: unknown): error is AgentModuleError {
    return OrreryError.hasMarker(error, agentModuleMarker);
  }
}
