import { Injectable, type OnApplicationBootstrap, type OnModuleDestroy, type Type } from '@nestjs/common';
import { GUARDS_METADATA, HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { ModuleRef } from '@nestjs/core';
import { FapiError, FapiFields, type FapiParamShape, type RawParams } from '@perp/contracts';
import type { IpList } from '@perp/auth';
import { HttpFastLanes, Metrics, parseFormBody, rawHeader } from '@perp/runtime';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TRUSTED_PROXY_LIST } from '../../access/access-options';
import { ApiKeyCache } from '../../access/signed/api-key-cache';
import type { FapiCaller } from '../../access/signed/fapi-caller';
import { mergeFapiParams } from '../../access/signed/fapi-params';
import { LastUsedRecorder } from '../../access/signed/last-used';
import { SIGNED_ENDPOINT, type SignedEndpoint } from '../../access/signed/signed';
import { SignedRequestGuard, verifySignedParts } from '../../access/signed/signed-request.guard';
import { declaredRoutes } from '../../openapi/routes';
import { OrderCountAdmission, orderCountRefusal } from '../../rate-limits/order-count.admission';
import { amountOf, DEFAULT_WEIGHT, retryAfterSeconds } from '../../rate-limits/rate-limit-rules';
import { RequestWeights, weightRefusal } from '../../rate-limits/request-weights';
import { FapiOrdersController } from '../orders/fapi-orders.controller';
import { countHeaderPairs, errorAnswer, LaneTimers, writeJson } from './lane-answers';

const FORM = 'application/x-www-form-urlencoded';
/** Larger bodies (a New Order is a few hundred bytes) go the usual way, under Fastify's body limit. */
const MAX_LANE_BODY = 8 * 1024;
/**
 * A query needing no decoding: printable ASCII without `%` or `+`, so any query-string parser reads
 * it as `&`- and `=`-splitting does. Anything else goes the usual way.
 */
const PLAIN_QUERY = /^[\x21-\x24\x26-\x2a\x2c-\x7e]*$/;

type Handler = (caller: FapiCaller, fields: FapiFields<FapiParamShape>) => Promise<unknown>;

interface Route {
  method: string;
  path: string;
  endpoint: SignedEndpoint;
  shape: FapiParamShape;
  status: number;
  handler: Handler;
  /** The request-duration series of this route for its success status. */
  ok: (seconds: number) => void;
}

/** The order-entry routes served this way: the ones a bot sends most. */
const LANE_ROUTES: readonly { method: 'post' | 'delete'; path: string }[] = [
  { method: 'post', path: '/fapi/v1/order' },
  { method: 'delete', path: '/fapi/v1/order' },
];

/**
 * New Order and Cancel Order as fast lanes (libs/runtime HttpFastLanes): the steps of the Nest route,
 * in its order, without Fastify's routing, body parsing and hooks or Nest's guard, pipe and filter
 * machinery around them (about as much CPU as the gateway's own work for an order): FapiWeightGuard
 * (the IP's request weight), SignedRequestGuard (key, IP whitelist, signature, timestamp; then the
 * account's order count; then the key's recorded use), the route's FapiInput parameters and the
 * same controller method, answered with ErrorEnvelopeFilter's envelopes and the same headers.
 * What each route declares (@Signed weight and orders, its input shape, its HTTP code) is read from
 * the controller's decorators, and the lane refuses to start if the route has other guards.
 * A lane takes only a request it can read exactly as Fastify would: a plain query (see PLAIN_QUERY)
 * and no body, or a form body of a known small length; anything else (JSON, chunked, encoded
 * queries) goes through Fastify and Nest, which answer the same.
 */
@Injectable()
export class SignedOrderLanes implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly timers: LaneTimers;
  private keys!: ApiKeyCache;
  private lastUsed!: LastUsedRecorder;
  private trustedProxies!: IpList;
  private admission!: OrderCountAdmission;

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
    this.keys = get(ApiKeyCache);
    this.lastUsed = get(LastUsedRecorder);
    this.admission = get(OrderCountAdmission);
    this.trustedProxies = this.modules.get<IpList>(TRUSTED_PROXY_LIST, { strict: false });
    const controller = get(FapiOrdersController);
    const declared = declaredRoutes([FapiOrdersController]);
    for (const want of LANE_ROUTES) {
      const d = declared.find((r) => r.method === want.method && r.path === want.path);
      const endpoint = d && (Reflect.getMetadata(SIGNED_ENDPOINT, d.handler) as SignedEndpoint | undefined);
      const guards = d && (Reflect.getMetadata(GUARDS_METADATA, d.handler) as unknown[] | undefined);
      if (
        !d ||
        !endpoint ||
        d.input?.kind !== 'fapi' ||
        guards?.length !== 1 ||
        guards[0] !== SignedRequestGuard
      )
        throw new Error(`${want.method} ${want.path}: not a @Signed FAPI route the order lanes can serve`);
      const method = want.method.toUpperCase();
      const status =
        (Reflect.getMetadata(HTTP_CODE_METADATA, d.handler) as number | undefined) ??
        (method === 'POST' ? 201 : 200);
      const handler = d.handler.bind(controller) as Handler;
      const route: Route = {
        method,
        path: want.path,
        endpoint,
        shape: d.input.shape,
        status,
        handler,
        ok: this.timers.of(method, want.path, status),
      };
      this.lanes.add(want.path, (req, res, query) => this.take(route, req, res, query), method);
    }
  }

  onModuleDestroy(): void {
    this.lanes.clear();
  }

  private take(route: Route, req: IncomingMessage, res: ServerResponse, query: string): boolean {
    if (!PLAIN_QUERY.test(query) || rawHeader(req, 'transfer-encoding') !== undefined) return false;
    const length = rawHeader(req, 'content-length');
    const type = rawHeader(req, 'content-type');
    if (length === undefined || length === '0') {
      if (type !== undefined) return false;
      void this.serve(route, req, res, query, undefined);
      return true;
    }
    const bytes = Number(length);
    if (type !== FORM || !/^\d+$/.test(length) || bytes > MAX_LANE_BODY) return false;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A request cut short never ends: nothing is answered or changed (its socket is gone).
    req.once('end', () => void this.serve(route, req, res, query, Buffer.concat(chunks)));
    return true;
  }

  /** The Nest route's steps in its order; every refusal throws before anything is changed. */
  private async serve(
    route: Route,
    req: IncomingMessage,
    res: ServerResponse,
    query: string,
    body: Buffer | undefined,
  ): Promise<void> {
    const started = performance.now();
    const headers: string[] = [];
    let status = route.status;
    let answer: Buffer;
    try {
      const ip = this.weights.ipOf(req);
      const weight = route.endpoint.weight;
      // fapiParams: the query (plain, so read as Fastify reads it) merged with the form body.
      let merged: RawParams | undefined;
      const params = () =>
        (merged ??= mergeFapiParams(
          parseFormBody(query),
          body && parseFormBody(body.toString('utf8')),
          body !== undefined,
        ));
      // As FapiWeightGuard and OrderCountAdmission read them (a rule that cannot read them: the fallback).
      const spent = await this.weights.spend(ip, amountOf(weight, params, DEFAULT_WEIGHT));
      if (spent) {
        headers.push(...countHeaderPairs(spent, true));
        const refused = weightRefusal(spent, ip);
        if (refused) {
          headers.push('retry-after', String(retryAfterSeconds(spent.states, spent.refused)));
          throw refused;
        }
      }
      const caller = await verifySignedParts(this.keys, this.trustedProxies, {
        apiKey: rawHeader(req, 'x-mbx-apikey'),
        remoteAddress: req.socket.remoteAddress,
        forwardedFor: rawHeader(req, 'x-forwarded-for'),
        url: req.url ?? route.path,
        body,
        contentType: rawHeader(req, 'content-type'),
      });
      const orders = route.endpoint.orders;
      if (orders !== undefined) {
        const counted = await this.admission.count(caller.userId, amountOf(orders, params, 0));
        if (counted) {
          headers.push(...countHeaderPairs(counted, false));
          const refused = orderCountRefusal(counted);
          if (refused) {
            headers.push('retry-after', String(retryAfterSeconds(counted.states, counted.refused)));
            throw new FapiError('TOO_MANY_REQUESTS', refused);
          }
        }
      }
      this.lastUsed.record(caller.apiKeyId);
      const view = await route.handler(caller, new FapiFields(route.shape, params()));
      answer = Buffer.from(JSON.stringify(view));
    } catch (e) {
      [status, answer] = errorAnswer(e, route.method, req.url ?? route.path);
    }
    writeJson(res, status, headers, answer);
    const timer = status === route.status ? route.ok : this.timers.of(route.method, route.path, status);
    timer((performance.now() - started) / 1000);
  }
}
