/** The server's own Prometheus metrics, in the Runner's registry beside the compaction ones. */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface HttpMetrics {
  observe(options: { method: string; route: string; status: number; seconds: number }): void;
  readonly runsInFlight: { set(value: number): void };
}

function reuse<T>(registry: Registry, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}

export function createHttpMetrics(options: { registry: Registry }): HttpMetrics {
  const { registry } = options;
  const registers = [registry];
  const requests = reuse(
    registry,
    'orrery_http_requests_total',
    () =>
      new Counter({
        name: 'orrery_http_requests_total',
        help: 'HTTP requests served, by method, route pattern and status.',
        labelNames: ['method', 'route', 'status'] as const,
        registers,
      }),
  );
  const duration = reuse(
    registry,
    'orrery_http_request_duration_seconds',
    () =>
      new Histogram({
        name: 'orrery_http_request_duration_seconds',
        help: 'Time to the response headers (a streamed run: to its first byte), by route pattern.',
        labelNames: ['method', 'route'] as const,
        buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
        registers,
      }),
  );
  const inFlight = reuse(
    registry,
    'orrery_http_runs_in_flight',
    () =>
      new Gauge({
        name: 'orrery_http_runs_in_flight',
        help: 'Runs (/run, /run_sse) being served now.',
        registers,
      }),
  );
  return {
    observe({ method, route, status, seconds }) {
      requests.inc({ method, route, status: String(status) });
      duration.observe({ method, route }, seconds);
    },
    runsInFlight: inFlight,
  };
}
