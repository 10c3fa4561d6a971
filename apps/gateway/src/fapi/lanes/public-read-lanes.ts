import { Injectable, type OnApplicationBootstrap, type OnModuleDestroy, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { FapiFields, type RawParams } from '@perp/contracts';
import { errorEnvelope, type FastLane, HttpFastLanes, Metrics } from '@perp/runtime';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import {
  amountOf,
  countHeaders,
  DEFAULT_WEIGHT,
  PUBLIC_WEIGHTS,
  retryAfterSeconds,
} from '../../rate-limits/rate-limit-rules';
import { RequestWeights, weightRefusal } from '../../rate-limits/request-weights';
import { FapiGeneralController } from '../fapi-general.controller';
import { FapiDepthController } from '../market/fapi-depth.controller';
import { FapiKlinesController } from '../market/fapi-klines.controller';
import { FapiTickersController } from '../market/fapi-tickers.controller';
import { DEPTH_PARAMS, KLINES_PARAMS, OPTIONAL_SYMBOL } from '../market/market-params';

const JSON_UTF8 = 'application/json; charset=utf-8';
/** A `name=value` pair needing no decoding; anything else (%, +, repeats) goes the usual way. */
const PLAIN_PAIR = /^([A-Za-z]+)=([A-Za-z0-9_.-]*)$/;

/** The query as Fastify would give it, when every pair is plain, known and sent once. */
export function plainParams(query: string, names: ReadonlySet<string>): RawParams | undefined {
  const out = Object.create(null) as RawParams;
  if (query === '') return out;
  for (const pair of query.split('&')) {
    const m = PLAIN_PAIR.exec(pair);
    if (!m || !names.has(m[1]!) || out[m[1]!] !== undefined) return undefined;
    out[m[1]!] = m[2]!;
  }
  return out;
}

type Answer = (params: RawParams) => unknown;

/**
 * The public market reads a bot polls (exchangeInfo, depth, tickers, klines) answered as fast
 * lanes (libs/runtime HttpFastLanes): the same controller methods, parameters, weight and error
 * envelopes as through Nest, without Fastify's routing and hooks or Nest's guards, pipes and filters
 * around them, which cost more than the answer itself (bodies are serialized once per projection
 * version by the controllers' caches, and here per view object). A query that is not plain (see
 * `plainParams`) takes the usual way, which answers the same.
 */
@Injectable()
export class PublicReadLanes implements OnApplicationBootstrap, OnModuleDestroy {
  /** Memoized views (TickerMemo) are kept while unchanged: their JSON is too. */
  private readonly serialized = new WeakMap<object, string>();
  /** The request-duration histogram's series per route and status (prom-client hashes labels). */
  private readonly timers = new Map<string, (seconds: number) => void>();

  constructor(
    private readonly lanes: HttpFastLanes,
    private readonly modules: ModuleRef,
    private readonly weights: RequestWeights,
    private readonly metrics: Metrics,
  ) {}

  onApplicationBootstrap(): void {
    const get = <T>(type: Type<T>) => this.modules.get(type, { strict: false });
    const general = get(FapiGeneralController);
    const depth = get(FapiDepthController);
    const tickers = get(FapiTickersController);
    const klines = get(FapiKlinesController);
    const symbolOnly = Object.keys(OPTIONAL_SYMBOL);
    this.add('/fapi/v1/exchangeInfo', [], () => general.exchangeInfo());
    this.add('/fapi/v1/depth', Object.keys(DEPTH_PARAMS), (p) =>
      depth.depthOf(new FapiFields(DEPTH_PARAMS, p)),
    );
    this.add('/fapi/v1/ticker/24hr', symbolOnly, (p) =>
      tickers.ticker24hr(new FapiFields(OPTIONAL_SYMBOL, p)),
    );
    for (const path of ['/fapi/v1/ticker/price', '/fapi/v2/ticker/price'])
      this.add(path, symbolOnly, (p) => tickers.price(new FapiFields(OPTIONAL_SYMBOL, p)));
    this.add('/fapi/v1/ticker/bookTicker', symbolOnly, (p) =>
      tickers.bookTicker(new FapiFields(OPTIONAL_SYMBOL, p)),
    );
    this.add('/fapi/v1/klines', Object.keys(KLINES_PARAMS), (p) =>
      klines.lastPrice(new FapiFields(KLINES_PARAMS, p)),
    );
  }

  onModuleDestroy(): void {
    this.lanes.clear();
  }

  private add(path: string, names: string[], answer: Answer): void {
    const known = new Set(names);
    const lane: FastLane = (req, res, query) => {
      const params = plainParams(query, known);
      if (!params) return false;
      void this.serve(req, res, path, params, answer);
      return true;
    };
    this.lanes.add(path, lane);
  }

  /** FapiWeightGuard, the handler and ErrorEnvelopeFilter in one: the same headers and bodies. */
  private async serve(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    params: RawParams,
    answer: Answer,
  ): Promise<void> {
    const started = performance.now();
    const headers: OutgoingHttpHeaders = {};
    let status = 200;
    let body: string;
    try {
      const ip = this.weights.ipOf(req);
      const rule = PUBLIC_WEIGHTS[path] ?? DEFAULT_WEIGHT;
      const weight = amountOf(rule, () => params, DEFAULT_WEIGHT);
      const outcome = await this.weights.spend(ip, weight);
      if (outcome) {
        const counts = countHeaders(outcome.windows, outcome.states);
        for (const [name, value] of Object.entries(counts)) headers[name.toLowerCase()] = value;
        const first = Object.values(counts)[0];
        if (first !== undefined) headers['x-mbx-used-weight'] = first;
        const refused = weightRefusal(outcome, ip);
        if (refused) {
          headers['retry-after'] = String(retryAfterSeconds(outcome.states, outcome.refused));
          throw refused;
        }
      }
      body = this.json(await answer(params));
    } catch (e) {
      let envelope: unknown;
      [status, envelope] = errorEnvelope(e, { method: 'GET', url: req.url ?? path });
      body = JSON.stringify(envelope);
    }
    headers['content-type'] = JSON_UTF8;
    headers['content-length'] = Buffer.byteLength(body);
    res.writeHead(status, headers);
    res.end(body);
    this.timerOf(path, status)((performance.now() - started) / 1000);
  }

  private timerOf(route: string, status: number): (seconds: number) => void {
    const key = `${status} ${route}`;
    let timer = this.timers.get(key);
    if (timer === undefined) {
      const series = this.metrics.httpRequestDuration.labels('GET', route, String(status));
      this.timers.set(key, (timer = (seconds) => series.observe(seconds)));
    }
    return timer;
  }

  private json(view: unknown): string {
    if (typeof view === 'string') return view;
    if (typeof view !== 'object' || view === null) return JSON.stringify(view);
    let text = this.serialized.get(view);
    if (text === undefined) this.serialized.set(view, (text = JSON.stringify(view)));
    return text;
  }
}
