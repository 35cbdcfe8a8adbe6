/**
 * The server's own Prometheus metrics, in the Runner's registry beside the compaction ones.
 * A request is counted in plain numbers (one `Map` lookup by method and route, a bucket
 * index): prom-client's labelled `inc` and `observe` hash and validate their labels on every
 * call, a tenth of the HTTP layer's CPU in a profile. The numbers reach the registry when it
 * is read: the counter through its `collect` hook, the histogram as a metric object of its
 * own whose `/metrics` text and JSON are prom-client's (`http-metrics.test.ts` holds them
 * equal, line for line).
 */
import { Counter, Gauge, type Metric, type Registry } from 'prom-client';

export interface HttpMetrics {
  observe(options: { method: string; route: string; status: number; seconds: number }): void;
  readonly runsInFlight: { set(value: number): void };
}

const REQUESTS = 'orrery_http_requests_total';
const DURATION = 'orrery_http_request_duration_seconds';
const IN_FLIGHT = 'orrery_http_runs_in_flight';
const BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** One method and route pattern: its duration histogram and its count by status. */
interface Series {
  /** prom-client keeps a series' label object and formats it once (a WeakMap cache). */
  readonly labels: { method: string; route: string };
  /** Observations per bucket, not cumulative (`BUCKETS[i]` is the upper bound of `[i]`). */
  readonly buckets: number[];
  sum: number;
  count: number;
  /** Requests by status not yet handed to the counter. */
  readonly pending: Map<number, number>;
}

/** A value as prom-client's exposition lists it. */
interface ValuePair {
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string>;
  value: number;
  metricName: string;
  exemplar?: null | undefined;
}

/**
 * `orrery_http_request_duration_seconds`, and the request counts the counter collects. It is
 * the registry's metric object for that name (so a second `createHttpMetrics` on the registry
 * finds it and counts into the same series).
 */
class RequestSeries {
  readonly name = DURATION;
  readonly help =
    'Time to the response headers (a streamed run: to its first byte), by route pattern.';
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private series = new Map<string, Series>();
  /** Each method, route and status in the order first seen: the counter lists them so. */
  private statuses: Array<{ series: Series; status: number }> = [];

  observe(method: string, route: string, status: number, seconds: number): void {
    if (!Number.isFinite(seconds)) {
      throw new TypeError(`${DURATION}: the duration must be a finite number, got ${seconds}`);
    }
    const key = `${method} ${route}`;
    let series = this.series.get(key);
    if (series === undefined) {
      series = {
        labels: { method, route },
        buckets: BUCKETS.map(() => 0),
        sum: 0,
        count: 0,
        pending: new Map(),
      };
      this.series.set(key, series);
    }
    series.sum += seconds;
    series.count += 1;
    for (let index = 0; index < BUCKETS.length; index++) {
      if (seconds <= (BUCKETS[index] as number)) {
        (series.buckets[index] as number)++;
        break;
      }
    }
    const pending = series.pending.get(status);
    if (pending === undefined) this.statuses.push({ series, status });
    series.pending.set(status, (pending ?? 0) + 1);
  }

  /** Hands the counts since the last read to the counter (its `collect` hook). */
  flushTo(counter: Counter<'method' | 'route' | 'status'>): void {
    for (const { series, status } of this.statuses) {
      const count = series.pending.get(status) ?? 0;
      if (count === 0) continue;
      counter.inc({ ...series.labels, status: String(status) }, count);
      // Kept at 0, not deleted: the next request of this status allocates nothing.
      series.pending.set(status, 0);
    }
  }

  /** prom-client's `Histogram.getForPromString` shape (the registry's text exposition). */
  async getForPromString(): Promise<{
    name: string;
    help: string;
    type: string;
    values: ValuePair[];
    aggregator: string;
  }> {
    const values: ValuePair[] = [];
    for (const series of this.series.values()) {
      let cumulative = 0;
      BUCKETS.forEach((bound, index) => {
        cumulative += series.buckets[index] as number;
        values.push({
          labels: { le: bound },
          sharedLabels: series.labels,
          value: cumulative,
          metricName: `${this.name}_bucket`,
          exemplar: null,
        });
      });
      values.push(
        {
          labels: { le: '+Inf' },
          sharedLabels: series.labels,
          value: series.count,
          metricName: `${this.name}_bucket`,
          exemplar: null,
        },
        {
          labels: {},
          sharedLabels: series.labels,
          value: series.sum,
          metricName: `${this.name}_sum`,
          exemplar: undefined,
        },
        {
          labels: {},
          sharedLabels: series.labels,
          value: series.count,
          metricName: `${this.name}_count`,
          exemplar: undefined,
        },
      );
    }
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      values,
      aggregator: this.aggregator,
    };
  }

  /** prom-client's `Histogram.get` shape (`getMetricsAsJSON`): the shared labels merged in. */
  async get(): Promise<{
    name: string;
    help: string;
    type: string;
    values: ValuePair[];
    aggregator: string;
  }> {
    const data = await this.getForPromString();
    data.values = data.values.map(({ sharedLabels, labels, ...rest }) => ({
      ...rest,
      labels: { ...labels, ...sharedLabels },
    }));
    return data;
  }

  /** `registry.resetMetrics()`: every series from zero (its unflushed counts too). */
  reset(): void {
    this.series = new Map();
    this.statuses = [];
  }
}

export function createHttpMetrics(options: { registry: Registry }): HttpMetrics {
  const { registry } = options;
  const registers = [registry];
  // Registered in prom-client's order of old (counter, histogram, gauge): `/metrics` lists
  // the metrics in the order they were registered.
  const found = registry.getSingleMetric(DURATION) as unknown;
  if (found !== undefined && !(found instanceof RequestSeries)) {
    throw new TypeError(
      `createHttpMetrics: the registry already holds a metric named ${DURATION} that is not the server's`,
    );
  }
  const series = found ?? new RequestSeries();
  if (registry.getSingleMetric(REQUESTS) === undefined) {
    new Counter({
      name: REQUESTS,
      help: 'HTTP requests served, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'] as const,
      registers,
      collect() {
        series.flushTo(this);
      },
    });
  }
  if (found === undefined) registry.registerMetric(series as unknown as Metric);
  const inFlight =
    (registry.getSingleMetric(IN_FLIGHT) as Gauge | undefined) ??
    new Gauge({
      name: IN_FLIGHT,
      help: 'Runs (/run, /run_sse) being served now.',
      registers,
    });
  return {
    observe({ method, route, status, seconds }) {
      series.observe(method, route, status, seconds);
    },
    runsInFlight: inFlight,
  };
}
