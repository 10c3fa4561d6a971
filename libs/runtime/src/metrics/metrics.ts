import { Logger } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { HistogramTally } from './histogram-tally';
import { SampledGauge } from './sampled-gauge';

/**
 * Every Prometheus series the apps export, in one place (deploy/grafana's dashboard is built on
 * these names, and a test holds it to them). One `Metrics` per application (RuntimeModule provides
 * it, `GET /metrics` serves it); the process metrics are shared by the applications of a process.
 *
 * Adding a series: a field here named `perp_<area>_<what>_<unit>` (`_total` for counters,
 * `_seconds`, `_bytes`, `_messages`...), updated by the module that owns the fact. A value the
 * owner already holds (a rate, a balance, a connection count) is a `SampledGauge` read at scrape
 * time, so nothing is written on the hot path; an event is a Counter or a Histogram. Series still
 * to come, each with its feature: funding rates, WebSocket connections and dropped clients.
 */
export class Metrics {
  readonly registry = new Registry();
  /** The `app` label of every series (createHttpApp sets the process's name). */
  app = 'perp';
  private readonly logger = new Logger('metrics');
  private readonly engineCommandCounts = new Map<string, Counter.Internal>();

  /** Gateway (and every app's probes): per route pattern, never the raw URL. */
  readonly httpRequestDuration: Histogram<'method' | 'route' | 'status'> = new Histogram({
    name: 'perp_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status, from arrival to the last byte of the reply.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
    collect: (): void => this.httpRequestTally.flush(),
  });

  /** Series of httpRequestDuration counted in place (the gateway's fast lanes: no label work per request). */
  readonly httpRequestTally: HistogramTally = new HistogramTally(this.httpRequestDuration);

  /** Orders end to end: gateway -> risk (-> engine -> risk settlement) -> the reply the gateway awaits. */
  readonly commandDuration = new Histogram({
    name: 'perp_gateway_command_duration_seconds',
    help: 'Commands the gateway sends to the risk shards until their reply (orders: through the engine and settlement), by command type and outcome (ok, refused, unanswered, failed).',
    labelNames: ['command', 'outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
    collect: (): void => this.commandTally.flush(),
  });

  /** Series of commandDuration counted in place (every order observes one). */
  readonly commandTally: HistogramTally = new HistogramTally(this.commandDuration);

  readonly busBatchSize = new Histogram({
    name: 'perp_bus_batch_size_messages',
    help: 'Messages per handler call (a batched turn, or 1) by consumer group, topic and partition.',
    labelNames: ['group', 'topic', 'partition'] as const,
    buckets: BATCH_BUCKETS,
    registers: [this.registry],
    collect: (): void => this.busBatchTally.flush(),
  });

  /** Series of busBatchSize counted in place (every turn of every stage observes one). */
  private readonly busBatchTally: HistogramTally = new HistogramTally(this.busBatchSize);

  readonly busConsumerLag = this.sampledGauge(
    'perp_bus_consumer_lag_messages',
    "Messages published but not yet handled, by consumer group, topic and partition: the partition's end offset minus the next offset the group handles (partitions this process owns and has handled a message of).",
    ['group', 'topic', 'partition'],
  );

  readonly busHandlerFailures = new Counter({
    name: 'perp_bus_handler_failures_total',
    help: 'Failed handler calls by consumer group, topic and partition; the bus calls the handler again (with a growing delay up to 5 s), so a partition that keeps failing holds back every later message of it.',
    labelNames: ['group', 'topic', 'partition'] as const,
    registers: [this.registry],
  });

  readonly busHandlerFailing = this.sampledGauge(
    'perp_bus_handler_failing_seconds',
    "Partitions whose handler failed on its last call, by consumer group, topic and partition: seconds since the first failure with no message handled since (a risk or engine partition stopped on a divergence stays here until a fix is deployed; runbook: the Helm chart's README).",
    ['group', 'topic', 'partition'],
  );

  /** market-data's public-market projector: how far its projections trail the engine (issue 12). */
  readonly marketDataLag = new Histogram({
    name: 'perp_market_data_lag_seconds',
    help: "Public market data: from the time an engine event was appended to the log to the end of the turn that projected it (hot store and Postgres written); one observation per turn, for the turn's oldest event.",
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly engineCommands = new Counter({
    name: 'perp_engine_commands_total',
    help: 'Engine commands applied by the matching engine, by type (replays of applied commands excluded).',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });

  readonly engineBookOrders = this.sampledGauge(
    'perp_engine_book_orders',
    'Orders resting in the books this matching engine owns, by symbol.',
    ['symbol'],
  );

  readonly engineBookLevels = this.sampledGauge(
    'perp_engine_book_levels',
    'Price levels in the books this matching engine owns, by symbol and side.',
    ['symbol', 'side'],
  );

  /** Gateway, from the risk partitions' totals in the hot store (see GET /admin/v1/solvency). */
  readonly insuranceFund = this.sampledGauge(
    'perp_risk_insurance_fund_usdt',
    "The insurance fund: the sum of every risk partition's insurance account, in the settlement asset.",
    [],
  );

  readonly solvencyDifference = this.sampledGauge(
    'perp_risk_solvency_difference_usdt',
    'Deposits - wallets - open-position PnL - fees - insurance fund over every risk partition: 0 when solvent (briefly not while a fill is settled on one side only).',
    [],
  );

  /**
   * Where the bus reports its consumers (the bus's ConsumerObserver): a recorder of batch sizes per
   * (group, topic, partition), and the reader of consumer lag.
   */
  readonly consumers = {
    partition: (group: string, topic: string, partition: number) =>
      this.busBatchTally.series({ group, topic, partition: String(partition) }),
    lag: (read: () => Promise<readonly ConsumerLag[]>) =>
      this.busConsumerLag.add(async () =>
        (await read()).map(({ lag, ...labels }) => ({ labels, value: lag })),
      ),
    failed: (group: string, topic: string, partition: number) =>
      this.busHandlerFailures.inc({ group, topic, partition: String(partition) }),
    failing: (read: () => readonly ConsumerFailing[]) =>
      this.busHandlerFailing.add(() => read().map(({ seconds, ...labels }) => ({ labels, value: seconds }))),
    /** A group gone from this process: its batch-size series go too (lag is sampled, so gone already). */
    forget: (group: string) => this.busBatchTally.drop((labels) => labels['group'] === group),
  };

  engineCommandApplied(type: string): void {
    let child = this.engineCommandCounts.get(type);
    if (!child) this.engineCommandCounts.set(type, (child = this.engineCommands.labels(type)));
    child.inc();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The text a scrape gets: this application's series and the process's, labelled with `app`. */
  async scrape(): Promise<string> {
    const all = Registry.merge([processMetrics(), this.registry]);
    all.setDefaultLabels({ app: this.app });
    return all.metrics();
  }

  private sampledGauge<L extends string>(name: string, help: string, labelNames: readonly L[]) {
    return new SampledGauge<L>(this.registry, name, help, labelNames, (series, e) =>
      this.logger.warn(`${series}: a sampler failed: ${e instanceof Error ? e.message : String(e)}`),
    );
  }
}

export interface ConsumerLag {
  group: string;
  topic: string;
  partition: number;
  lag: number;
}

export interface ConsumerFailing {
  group: string;
  topic: string;
  partition: number;
  seconds: number;
}

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const BATCH_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000];

let processRegistry: Registry | undefined;

/** CPU, memory, event loop, GC and handles (prom-client's default names): once per process. */
export function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}
