/**
 * prom-client metrics that several Runners (or adapters) can share in one registry: a metric
 * already registered under the name is reused, where a second registration would throw.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

interface MetricSpec<Label extends string> {
  name: string;
  help: string;
  labelNames: readonly Label[];
}

export function registeredCounter<Label extends string>(
  registry: Registry,
  spec: MetricSpec<Label>,
): Counter<Label> {
  const existing = registry.getSingleMetric(spec.name) as Counter<Label> | undefined;
  return existing ?? new Counter({ ...spec, registers: [registry] });
}

export function registeredHistogram<Label extends string>(
  registry: Registry,
  spec: MetricSpec<Label> & { buckets: number[] },
): Histogram<Label> {
  const existing = registry.getSingleMetric(spec.name) as Histogram<Label> | undefined;
  return existing ?? new Histogram({ ...spec, registers: [registry] });
}

export function registeredGauge<Label extends string>(
  registry: Registry,
  spec: MetricSpec<Label>,
): Gauge<Label> {
  const existing = registry.getSingleMetric(spec.name) as Gauge<Label> | undefined;
  return existing ?? new Gauge({ ...spec, registers: [registry] });
}
