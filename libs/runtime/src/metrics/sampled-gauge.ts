import { Gauge, type Registry } from 'prom-client';

export type Sample<L extends string> = { labels: Record<L, string | number>; value: number };
/** Reads current values when Prometheus scrapes; may be async (a broker round trip). */
export type Sampler<L extends string> = () => Iterable<Sample<L>> | Promise<Iterable<Sample<L>>>;

/**
 * A gauge measured at scrape time: its owners (several modules in the embedded exchange) each add
 * a sampler, and the gauge shows exactly what the samplers return now, so a series whose owner is
 * gone (a revoked partition, a closed module) disappears instead of keeping its last value.
 */
export class SampledGauge<L extends string> {
  private readonly samplers = new Set<Sampler<L>>();

  constructor(
    registry: Registry,
    name: string,
    help: string,
    labelNames: readonly L[],
    onError: (name: string, e: unknown) => void = () => undefined,
  ) {
    const samplers = this.samplers;
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        this.reset();
        for (const sample of samplers) {
          try {
            for (const { labels, value } of await sample()) this.set(labels, value);
          } catch (e) {
            onError(name, e);
          }
        }
      },
    });
  }

  /** Adds a sampler; the returned function removes it. */
  add(sampler: Sampler<L>): () => void {
    this.samplers.add(sampler);
    return () => this.samplers.delete(sampler);
  }
}
