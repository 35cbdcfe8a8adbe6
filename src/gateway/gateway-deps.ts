/** What the gateway's provider routes share. */
import type { InFlightRuns } from '../server/in-flight.js';
import type { GatewayConversations } from './gateway-conversations.js';
import type { GatewayRecall } from './gateway-recall.js';
import type { UpstreamMetrics } from './upstream-metrics.js';

export interface GatewayUpstream {
  /** Base URL per provider (no trailing slash): `openai` -> `https://api.openai.com/v1`. */
  baseUrls: Readonly<Record<string, string>>;
  fetch: typeof fetch;
}

export interface GatewayDeps {
  appName: string;
  conversations: GatewayConversations;
  inFlight: InFlightRuns;
  upstream: GatewayUpstream;
  upstreamMetrics: UpstreamMetrics;
  newSessionId(): string;
  /** Recall through the gateway: `always` offers it on every request, else on `x-orrery-recall: 1`. */
  recall?: { answerer: GatewayRecall; always: boolean };
}
