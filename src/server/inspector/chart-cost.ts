/**
 * The live chart's cost per call (docs/cost.md#live-spend): each stored model call's estimated
 * USD from the usage its provider reported, at the catalog price of the model of the agent that
 * answered (the event's author in the served agent tree), as the Runner's live spend prices it.
 * A call without usage, or whose agent's model the catalog does not list, has `null`: a price is
 * never guessed. Cache writes are not stored on events, so they are priced as plain input.
 */
import type { Event, UsageMetadata } from '../../events/types.js';
import type { Agent } from '../../runtime/agents/agent.js';
import { findAgent } from '../../runtime/agents/sub-agents.js';
import { isRecordedModelCall } from '../../runtime/replay/replay.js';
import { responseUsd, SpendPrices } from '../../runtime/turn/live-spend.js';
import type { ChartCost } from './api-types.js';

interface PricedCall {
  author: string;
  usage?: UsageMetadata;
}

export class ChartCostCollector {
  private readonly calls: PricedCall[] = [];

  /** The next stored events, in `seq` order (the chart's own order of calls). */
  add(events: readonly Event[]): void {
    for (const event of events) {
      if (event.actions?.compaction || event.partial || !isRecordedModelCall(event)) continue;
      this.calls.push({
        author: event.author,
        ...(event.usageMetadata && { usage: event.usageMetadata }),
      });
    }
  }

  /**
   * USD per call, or `undefined` when no call could be priced. `model` is the served agent's
   * model id (the one the chart's caption names; sub-agents are priced at their own).
   */
  async result(options: { agent: Agent; prices?: SpendPrices }): Promise<ChartCost | undefined> {
    const prices = options.prices ?? new SpendPrices();
    const rootModel = modelIdOf(options.agent);
    const perCallUsd: (number | null)[] = [];
    for (const call of this.calls) {
      const modelId = modelIdOf(findAgent(options.agent, call.author) ?? options.agent);
      const found = modelId === undefined ? undefined : await prices.pricesFor(modelId);
      const usd = responseUsd(
        found,
        call.usage
          ? { content: { role: 'model', parts: [] }, usageMetadata: call.usage }
          : undefined,
      );
      perCallUsd.push(usd ?? null);
    }
    if (!perCallUsd.some((usd) => usd !== null)) return undefined;
    return { model: rootModel ?? 'unknown', currency: 'USD', perCallUsd };
  }
}

function modelIdOf(agent: Agent): string | undefined {
  const model = (agent as { model?: { modelId?: unknown } }).model;
  return typeof model?.modelId === 'string' ? model.modelId : undefined;
}
