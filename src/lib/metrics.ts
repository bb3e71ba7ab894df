import { Counter, Histogram, type Registry } from 'prom-client';

/**
 * One metric per name and registry, even when several apps (or tests) register theirs on the same registry:
 * prom-client refuses a second registration of a name.
 */
export function counter<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
): Counter<L> {
  const existing = registry.getSingleMetric(name);
  if (existing instanceof Counter) return existing as Counter<L>;
  return new Counter({ name, help, labelNames, registers: [registry] });
}

export function histogram(registry: Registry, name: string, help: string, buckets: number[]): Histogram {
  const existing = registry.getSingleMetric(name);
  if (existing instanceof Histogram) return existing as Histogram;
  return new Histogram({ name, help, buckets, registers: [registry] });
}
