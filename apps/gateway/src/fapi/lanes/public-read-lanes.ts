import { Injectable, type OnApplicationBootstrap, type OnModuleDestroy, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { FapiFields, type FapiParamShape, type RawParams } from '@perp/contracts';
import { HttpFastLanes, Metrics } from '@perp/runtime';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import {
  amountOf,
  DEFAULT_WEIGHT,
  PUBLIC_WEIGHTS,
  retryAfterSeconds,
} from '../../rate-limits/rate-limit-rules';
import { RequestWeights, weightRefusal } from '../../rate-limits/request-weights';
import type { LimitOutcome } from '../../rate-limits/window-limiter';
import { FapiGeneralController } from '../fapi-general.controller';
import { FapiDepthController } from '../market/fapi-depth.controller';
import { FapiKlinesController } from '../market/fapi-klines.controller';
import { FapiTickersController } from '../market/fapi-tickers.controller';
import { DEPTH_PARAMS, KLINES_PARAMS, OPTIONAL_SYMBOL } from '../market/market-params';
import { countHeaderPairs, errorAnswer, LaneTimers, writeJson } from './lane-answers';

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

/** FapiFields whose parsed values are kept: one per distinct query, shared by its requests. */
class KeptFields<S extends FapiParamShape> extends FapiFields<S> {
  private readonly kept = new Map<string, unknown>();

  override get<K extends keyof S & string>(name: K): z.output<S[K]> {
    if (this.kept.has(name)) return this.kept.get(name) as z.output<S[K]>;
    const value = super.get(name); // a malformed parameter throws each time, and is not kept
    this.kept.set(name, value);
    return value;
  }
}

type Answer = (fields: FapiFields<FapiParamShape>) => unknown;

/** A query seen before: its parameters parsed and its weight computed once. */
interface Prepared {
  fields: FapiFields<FapiParamShape>;
  weight: number;
}

interface Lane {
  path: string;
  shape: FapiParamShape;
  known: ReadonlySet<string>;
  answer: Answer;
  /** By the raw query text; cleared when large (queries are client-chosen). */
  queries: Map<string, Prepared>;
  /** The request-duration series of this route for 200 (others in `timers`). */
  ok: (seconds: number) => void;
}

const MAX_QUERIES = 1_000;
/** Longer queries are prepared each time, not kept (a bound on what clients can make us hold). */
const MAX_KEPT_QUERY = 256;
const isPromise = (v: unknown): v is Promise<unknown> => v instanceof Promise;

/**
 * The public market reads a bot polls (exchangeInfo, depth, tickers, klines) answered as fast
 * lanes (libs/runtime HttpFastLanes): the same controller methods, parameters, weight and error
 * envelopes as through Nest, without Fastify's routing and hooks or Nest's guards, pipes and filters
 * around them, which cost more than the answer itself. Per distinct query the parameters are
 * parsed and weighed once; the weight is spent from this replica's lease (RequestWeights), so a
 * request awaits nothing unless the lease or the answer needs the hot store; bodies are serialized
 * once per projection version by the controllers' caches, and here per view object. With the
 * embedded exchange's in-process hot store, a one-symbol answer is also kept with the versions of
 * the keys it was made from (LocalAnswers) and written again with no read while they are unchanged.
 * A query that is not plain (see `plainParams`) takes the usual way, which answers the same.
 */
@Injectable()
export class PublicReadLanes implements OnApplicationBootstrap, OnModuleDestroy {
  /** Memoized views (TickerMemo) are kept while unchanged: so are their UTF-8 JSON bodies. */
  private readonly serialized = new WeakMap<object, Buffer>();
  private readonly timers: LaneTimers;

  constructor(
    private readonly lanes: HttpFastLanes,
    private readonly modules: ModuleRef,
    private readonly weights: RequestWeights,
    metrics: Metrics,
  ) {
    this.timers = new LaneTimers(metrics);
  }

  onApplicationBootstrap(): void {
    const get = <T>(type: Type<T>) => this.modules.get(type, { strict: false });
    const general = get(FapiGeneralController);
    const depth = get(FapiDepthController);
    const tickers = get(FapiTickersController);
    const klines = get(FapiKlinesController);
    type Of<S extends FapiParamShape> = FapiFields<S>;
    this.add('/fapi/v1/exchangeInfo', {}, () => general.exchangeInfo());
    // `…Now`: the answer kept from an earlier request while what it was made of is unchanged
    // (an in-process hot store only), else the route's usual read.
    const depthOf = (q: Of<typeof DEPTH_PARAMS>) => depth.depthNow(q) ?? depth.depthOf(q);
    this.add('/fapi/v1/depth', DEPTH_PARAMS, (q) => depthOf(q as Of<typeof DEPTH_PARAMS>));
    const ticker = (q: Of<typeof OPTIONAL_SYMBOL>) => tickers.ticker24hrNow(q) ?? tickers.ticker24hr(q);
    this.add('/fapi/v1/ticker/24hr', OPTIONAL_SYMBOL, (q) => ticker(q as Of<typeof OPTIONAL_SYMBOL>));
    const price = (q: Of<typeof OPTIONAL_SYMBOL>) => tickers.priceNow(q) ?? tickers.price(q);
    for (const path of ['/fapi/v1/ticker/price', '/fapi/v2/ticker/price'])
      this.add(path, OPTIONAL_SYMBOL, (q) => price(q as Of<typeof OPTIONAL_SYMBOL>));
    const bookTicker = (q: Of<typeof OPTIONAL_SYMBOL>) => tickers.bookTickerNow(q) ?? tickers.bookTicker(q);
    this.add('/fapi/v1/ticker/bookTicker', OPTIONAL_SYMBOL, (q) =>
      bookTicker(q as Of<typeof OPTIONAL_SYMBOL>),
    );
    const candles = (q: Of<typeof KLINES_PARAMS>) => klines.lastPriceNow(q) ?? klines.lastPrice(q);
    this.add('/fapi/v1/klines', KLINES_PARAMS, (q) => candles(q as Of<typeof KLINES_PARAMS>));
  }

  onModuleDestroy(): void {
    this.lanes.clear();
  }

  private add(path: string, shape: FapiParamShape, answer: Answer): void {
    const lane: Lane = {
      path,
      shape,
      known: new Set(Object.keys(shape)),
      answer,
      queries: new Map(),
      ok: this.timers.of('GET', path, 200),
    };
    this.lanes.add(path, (req, res, query) => {
      const prepared = lane.queries.get(query) ?? this.prepare(lane, query);
      if (!prepared) return false;
      this.serve(req, res, lane, prepared);
      return true;
    });
  }

  private prepare(lane: Lane, query: string): Prepared | undefined {
    const params = plainParams(query, lane.known);
    if (!params) return undefined;
    const rule = PUBLIC_WEIGHTS[lane.path] ?? DEFAULT_WEIGHT;
    const prepared = {
      fields: new KeptFields(lane.shape, params),
      weight: amountOf(rule, () => params, DEFAULT_WEIGHT),
    };
    if (query.length > MAX_KEPT_QUERY) return prepared;
    if (lane.queries.size >= MAX_QUERIES) lane.queries.clear();
    lane.queries.set(query, prepared);
    return prepared;
  }

  /** FapiWeightGuard, the handler and ErrorEnvelopeFilter in one: the same headers and bodies. */
  private serve(req: IncomingMessage, res: ServerResponse, lane: Lane, prepared: Prepared): void {
    const started = performance.now();
    let ip: string;
    let spent: ReturnType<RequestWeights['spend']>;
    try {
      ip = this.weights.ipOf(req);
      spent = this.weights.spend(ip, prepared.weight);
    } catch (e) {
      return this.send(req, res, lane, started, [], e);
    }
    if (isPromise(spent))
      spent.then(
        (outcome) => this.answer(req, res, lane, prepared, started, ip, outcome),
        (e: unknown) => this.send(req, res, lane, started, [], e),
      );
    else this.answer(req, res, lane, prepared, started, ip, spent);
  }

  private answer(
    req: IncomingMessage,
    res: ServerResponse,
    lane: Lane,
    prepared: Prepared,
    started: number,
    ip: string,
    outcome: LimitOutcome | undefined,
  ): void {
    let headers: string[] = [];
    let view: unknown;
    try {
      if (outcome) {
        headers = countHeaderPairs(outcome, true);
        const refused = weightRefusal(outcome, ip);
        if (refused) {
          headers.push('retry-after', String(retryAfterSeconds(outcome.states, outcome.refused)));
          throw refused;
        }
      }
      view = lane.answer(prepared.fields);
    } catch (e) {
      return this.send(req, res, lane, started, headers, e);
    }
    if (isPromise(view))
      view.then(
        (v) => this.send(req, res, lane, started, headers, undefined, v),
        (e: unknown) => this.send(req, res, lane, started, headers, e),
      );
    else this.send(req, res, lane, started, headers, undefined, view);
  }

  /** The answer (`view`) or the error envelope of `error`, with the weight headers. */
  private send(
    req: IncomingMessage,
    res: ServerResponse,
    lane: Lane,
    started: number,
    headers: string[],
    error: unknown,
    view?: unknown,
  ): void {
    let status = 200;
    let body: Buffer | undefined;
    if (error === undefined) {
      try {
        body = this.json(view);
      } catch (e) {
        error = e;
      }
    }
    if (body === undefined) [status, body] = errorAnswer(error, 'GET', req.url ?? lane.path);
    writeJson(res, status, headers, body);
    (status === 200 ? lane.ok : this.timers.of('GET', lane.path, status))(
      (performance.now() - started) / 1000,
    );
  }

  /** The body of an answer: bytes (depth, klines) or text as given, JSON of anything else. */
  private json(view: unknown): Buffer {
    if (Buffer.isBuffer(view)) return view;
    if (typeof view === 'string') return Buffer.from(view);
    if (typeof view !== 'object' || view === null) return Buffer.from(JSON.stringify(view));
    let body = this.serialized.get(view);
    if (body === undefined) this.serialized.set(view, (body = Buffer.from(JSON.stringify(view))));
    return body;
  }
}
