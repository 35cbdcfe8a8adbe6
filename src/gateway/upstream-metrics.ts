/** Requests the gateway forwarded, by provider and the upstream's status, and their sizes. */
import type { Registry } from 'prom-client';
import { registeredCounter, registeredHistogram } from '../observability/registered-metric.js';

export interface UpstreamMetrics {
  observe(options: { provider: string; status: number; bytes: number }): void;
}

export function createUpstreamMetrics(options: { registry: Registry }): UpstreamMetrics {
  const requests = registeredCounter(options.registry, {
    name: 'orrery_gateway_upstream_requests_total',
    help: 'Requests the gateway forwarded upstream, by provider and the status it answered.',
    labelNames: ['provider', 'status'] as const,
  });
  const bytes = registeredHistogram(options.registry, {
    name: 'orrery_gateway_upstream_request_bytes',
    help: 'Size of the forwarded request bodies (after compaction), by provider.',
    labelNames: ['provider'] as const,
    buckets: [4096, 16384, 65536, 262144, 1048576, 4194304],
  });
  return {
    observe({ provider, status, bytes: size }) {
      requests.inc({ provider, status: String(status) });
      bytes.observe({ provider }, size);
    },
  };
}
