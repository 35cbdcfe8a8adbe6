/**
 * The HTTP metrics are counted in plain numbers and handed to the registry when it is read:
 * what `/metrics` shows (text and JSON, Prometheus and OpenMetrics) must be what prom-client's
 * own labelled counter and histogram show for the same requests, line for line.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createHttpMetrics, type HttpMetrics } from './http-metrics.js';

/** The metrics as they were built before (prom-client's labelled metrics, counted per call). */
function referenceMetrics(registry: Registry): HttpMetrics {
  const registers = [registry];
  const requests = new Counter({
    name: 'orrery_http_requests_total',
    help: 'HTTP requests served, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  });
  const duration = new Histogram({
    name: 'orrery_http_request_duration_seconds',
    help: 'Time to the response headers (a streamed run: to its first byte), by route pattern.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers,
  });
  const inFlight = new Gauge({
    name: 'orrery_http_runs_in_flight',
    help: 'Runs (/run, /run_sse) being served now.',
    registers,
  });
  return {
    observe({ method, route, status, seconds }) {
      requests.inc({ method, route, status: String(status) });
      duration.observe({ method, route }, seconds);
    },
    runsInFlight: inFlight,
  };
}

type Request = { method: string; route: string; status: number; seconds: number };

const FIRST: Request[] = [
  { method: 'POST', route: '/run', status: 200, seconds: 0.0004 },
  { method: 'POST', route: '/run', status: 200, seconds: 0.003 },
  { method: 'GET', route: '/healthz', status: 200, seconds: 0.001 },
  { method: 'POST', route: '/run', status: 401, seconds: 0.0001 },
  { method: 'POST', route: '/run', status: 200, seconds: 61 },
  { method: 'GET', route: '/apps/:app/users/:user/sessions/:session', status: 404, seconds: 0.2 },
];
const SECOND: Request[] = [
  { method: 'POST', route: '/run', status: 413, seconds: 0.01 },
  { method: 'POST', route: '/run', status: 200, seconds: 0.025 },
  { method: 'GET', route: 'unmatched', status: 404, seconds: 2.5 },
  { method: 'GET', route: '/healthz', status: 200, seconds: 0.1234567 },
  { method: 'POST', route: '/run_sse', status: 200, seconds: 30 },
];

/** prom-client's types leave out the constructor's content type: set after. */
function registryOf(type: string): Registry {
  const registry = new Registry();
  (registry as unknown as { setContentType(type: string): void }).setContentType(type);
  return registry;
}

async function exposition(registry: Registry) {
  return { text: await registry.metrics(), json: await registry.getMetricsAsJSON() };
}

describe('HTTP metrics', () => {
  it.each([
    ['Prometheus', Registry.PROMETHEUS_CONTENT_TYPE],
    ['OpenMetrics', Registry.OPENMETRICS_CONTENT_TYPE],
  ] as const)(
    '%s: the same text and JSON as prom-client counting each request',
    async (_name, type) => {
      const plain = registryOf(type);
      const reference = registryOf(type);
      const metrics = createHttpMetrics({ registry: plain });
      const expected = referenceMetrics(reference);
      expect(await exposition(plain)).toEqual(await exposition(reference));
      for (const request of FIRST) {
        metrics.observe(request);
        expected.observe(request);
      }
      const first = await exposition(plain);
      expect(first).toEqual(await exposition(reference));
      expect(first.text).toContain(
        'orrery_http_requests_total{method="POST",route="/run",status="200"} 3',
      );
      // Read again with nothing new: the counts are not handed over twice.
      expect(await exposition(plain)).toEqual(first);
      // New series after a read keep prom-client's order (first seen, first listed).
      for (const request of SECOND) {
        metrics.observe(request);
        expected.observe(request);
      }
      expect(await exposition(plain)).toEqual(await exposition(reference));
      metrics.runsInFlight.set(2);
      expected.runsInFlight.set(2);
      expect(await exposition(plain)).toEqual(await exposition(reference));
    },
  );

  it('a reset registry starts from zero, the counts not yet read included', async () => {
    const plain = new Registry();
    const reference = new Registry();
    const metrics = createHttpMetrics({ registry: plain });
    const expected = referenceMetrics(reference);
    for (const request of FIRST) {
      metrics.observe(request);
      expected.observe(request);
    }
    plain.resetMetrics();
    reference.resetMetrics();
    for (const request of SECOND) {
      metrics.observe(request);
      expected.observe(request);
    }
    expect(await exposition(plain)).toEqual(await exposition(reference));
  });

  it('two servers on one registry count into the same series', async () => {
    const plain = new Registry();
    const reference = new Registry();
    const first = createHttpMetrics({ registry: plain });
    const second = createHttpMetrics({ registry: plain });
    const expected = referenceMetrics(reference);
    FIRST.forEach((request, index) => {
      (index % 2 === 0 ? first : second).observe(request);
      expected.observe(request);
    });
    expect(await exposition(plain)).toEqual(await exposition(reference));
    expect(plain.getMetricsAsArray()).toHaveLength(3);
  });

  it('refuses a registry whose duration metric is another one, naming it', () => {
    const registry = new Registry();
    new Histogram({
      name: 'orrery_http_request_duration_seconds',
      help: 'x',
      registers: [registry],
    });
    expect(() => createHttpMetrics({ registry })).toThrow(/orrery_http_request_duration_seconds/);
  });
});
