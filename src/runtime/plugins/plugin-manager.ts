import type { Content, NewEvent } from '../../events/types.js';
import type { ModelResponse } from '../../models/types.js';
import type {
  AfterCompactionContext,
  AfterModelContext,
  AfterToolContext,
  BeforeCompactionContext,
  BeforeRunContext,
  EventContext,
  ModelCallContext,
  Plugin,
  PluginRunContext,
  ToolCallContext,
} from './plugin.js';

/** Runs the plugins' hooks in order, applying their short-circuits and replacements. */
export class PluginManager {
  readonly plugins: readonly Plugin[];

  constructor(options: { plugins?: readonly Plugin[] }) {
    this.plugins = [...(options.plugins ?? [])];
  }

  async beforeRun(context: BeforeRunContext): Promise<Content | undefined> {
    for (const plugin of this.plugins) {
      const answer = await plugin.beforeRun?.(context);
      if (answer) return answer;
    }
    return undefined;
  }

  async afterRun(context: PluginRunContext): Promise<void> {
    for (const plugin of this.plugins) await plugin.afterRun?.(context);
  }

  async beforeModel(context: ModelCallContext): Promise<ModelResponse | undefined> {
    for (const plugin of this.plugins) {
      const response = await plugin.beforeModel?.(context);
      if (response) return response;
    }
    return undefined;
  }

  async afterModel(context: AfterModelContext): Promise<ModelResponse> {
    let response = context.response;
    for (const plugin of this.plugins) {
      const replacement = await plugin.afterModel?.({ ...context, response });
      if (replacement) response = replacement;
    }
    return response;
  }

  async beforeTool(context: ToolCallContext): Promise<unknown> {
    for (const plugin of this.plugins) {
      const result = await plugin.beforeTool?.(context);
      if (result !== undefined) return result;
    }
    return undefined;
  }

  async afterTool(context: AfterToolContext): Promise<unknown> {
    let result = context.result;
    for (const plugin of this.plugins) {
      const replacement = await plugin.afterTool?.({ ...context, result });
      if (replacement !== undefined) result = replacement;
    }
    return result;
  }

  async onEvent(context: EventContext): Promise<NewEvent> {
    let event = context.event;
    for (const plugin of this.plugins) {
      const replacement = await plugin.onEvent?.({ ...context, event });
      if (replacement) event = replacement;
    }
    return event;
  }

  async beforeCompaction(context: BeforeCompactionContext): Promise<boolean> {
    for (const plugin of this.plugins) {
      if ((await plugin.beforeCompaction?.(context)) === false) return false;
    }
    return true;
  }

  async afterCompaction(context: AfterCompactionContext): Promise<void> {
    for (const plugin of this.plugins) await plugin.afterCompaction?.(context);
  }
}
