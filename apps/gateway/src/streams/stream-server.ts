import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type BeforeApplicationShutdown,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { clientIp, type IpList } from '@perp/auth';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { MarketRegistry, parseStreamName, servedOn, streamKey } from '@perp/domain';
import { APP_CONFIG, type AppConfig } from '@perp/runtime';
import { WebSocketServer } from 'ws';
import { TRUSTED_PROXY_LIST } from '../access';
import { ListenKeyRepository } from '@perp/persistence';
import { listenKeyOwner } from '../fapi/account/listen-keys';
import { NativeChannels, type NativeLogin } from './native-session';
import { CLOSE, StreamConnection, type StreamSurface } from './stream-connection';
import { StreamHub } from './stream-hub';
import { isRequestError, parseStreamRequest, requestError, type StreamRequest } from './stream-requests';

/** Limits of the stream server; tests shorten them on the running instance. */
export interface StreamLimits {
  maxConnectionsPerIp: number;
  maxStreamsPerConnection: number;
  requestsPerSecond: number;
  maxBufferedBytes: number;
  pingIntervalMs: number;
  lifetimeMs: number;
  /** How often user-data connections check that their listen key still lives. */
  listenKeyCheckMs: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = {
  maxConnectionsPerIp: 300,
  maxStreamsPerConnection: 1024,
  requestsPerSecond: 10,
  maxBufferedBytes: 4 * 1024 * 1024,
  pingIntervalMs: 180_000,
  lifetimeMs: 24 * 3600_000,
  listenKeyCheckMs: 30_000,
};

const LISTEN_KEY = /^[0-9a-fA-F]{64}$/;

/** What an upgrade URL asks for. */
interface Route {
  surface: StreamSurface;
  combined: boolean;
  streams: string[];
  listenKey?: string;
}

/** The native API's path (channels, not Binance streams). */
export const NATIVE_WS_PATH = '/api/v1/ws';

/** The route of an upgrade path, or undefined (404). */
export function routeOf(url: string): Route | undefined {
  const u = new URL(url, 'http://localhost');
  if (u.pathname === NATIVE_WS_PATH) return { surface: 'native', combined: false, streams: [] };
  const m = /^\/(?:(public|market|private)\/)?(ws|stream)(?:\/(.*))?$/.exec(u.pathname);
  if (!m) return undefined;
  const surface = (m[1] ?? 'all') as StreamSurface;
  const combined = m[2] === 'stream';
  // A raw path segment that names no stream (ccxt's `/ws/0` connection index) only labels the socket.
  const streams = (combined ? (u.searchParams.get('streams') ?? '') : (m[3] ?? ''))
    .split('/')
    .filter((s) => s.includes('@') || s.startsWith('!') || LISTEN_KEY.test(s));
  // A private connection may come without a key and SUBSCRIBE one (Binance's official connector opens
  // `/private/stream?streams=` empty): it serves nothing else.
  const listenKey = u.searchParams.get('listenKey') ?? streams.find((s) => LISTEN_KEY.test(s));
  return { surface, combined, streams: streams.filter((s) => s !== listenKey), listenKey };
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  429: 'Too Many Requests',
};

/** The JWT a native client gave at connect: `?token=` (browsers) or `Authorization: Bearer`. */
function connectToken(req: IncomingMessage): string | undefined {
  const query = new URL(req.url ?? '/', 'http://localhost').searchParams.get('token');
  if (query) return query;
  const header = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '');
  return header?.[1];
}

function refuse(socket: Duplex, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Bad Request'}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}

/**
 * The WebSocket server on the gateway's HTTP port: Binance's stream paths (`/ws`, `/stream`, and
 * the split `/public`, `/market`, `/private` ones), live SUBSCRIBE and friends, user data by listen
 * key, ping/pong, per-IP and per-connection limits, and a close code for everyone on shutdown.
 */
@Injectable()
export class StreamServer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('StreamServer');
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  private readonly perIp = new Map<string, number>();
  private server: Server | undefined;
  private pinger: NodeJS.Timeout | undefined;
  private keyChecker: NodeJS.Timeout | undefined;
  readonly limits: StreamLimits;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly hub: StreamHub,
    private readonly markets: MarketRegistry,
    private readonly native: NativeChannels,
    @Inject(HOT_STORE) private readonly hot: HotStore,
    @Inject(TRUSTED_PROXY_LIST) private readonly trustedProxies: IpList,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly listenKeys: ListenKeyRepository,
  ) {
    this.limits = { ...DEFAULT_STREAM_LIMITS, lifetimeMs: config.WS_CONNECTION_LIFETIME_MS };
  }

  private readonly onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    void this.upgrade(req, socket, head).catch((err: unknown) => {
      this.logger.error(`upgrade failed: ${String(err)}`);
      socket.destroy();
    });
  };

  onApplicationBootstrap(): void {
    this.server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    this.server?.on('upgrade', this.onUpgrade);
    this.restartTimers();
  }

  /** Re-arms the ping and listen-key timers (after a test changed the limits). */
  restartTimers(): void {
    clearInterval(this.pinger);
    clearInterval(this.keyChecker);
    this.pinger = setInterval(() => this.ping(), this.limits.pingIntervalMs).unref();
    this.keyChecker = setInterval(() => void this.checkListenKeys(), this.limits.listenKeyCheckMs).unref();
  }

  /** Before the HTTP server closes: it waits for upgraded sockets too, so they go first. */
  beforeApplicationShutdown(): void {
    this.server?.off('upgrade', this.onUpgrade);
    clearInterval(this.pinger);
    clearInterval(this.keyChecker);
    for (const c of this.hub.connections) c.close(CLOSE.shutdown, 'server shutting down');
    this.hub.flush();
    this.wss.close();
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const route = routeOf(req.url ?? '/');
    if (!route) return refuse(socket, 404, { code: -1, msg: 'No stream at this path.' });
    const ip = clientIp(req.socket.remoteAddress, req.headers['x-forwarded-for'], this.trustedProxies);
    if ((this.perIp.get(ip) ?? 0) >= this.limits.maxConnectionsPerIp)
      return refuse(socket, 429, { code: -1, msg: 'Too many connections from this IP.' });
    if (route.surface === 'native') return this.upgradeNative(req, socket, head, ip);
    const keys: [string, string][] = [];
    for (const name of route.streams) {
      const key = this.keyOf(name, route.surface);
      if (key === undefined)
        return refuse(socket, 400, { code: 2, msg: `Invalid request: invalid stream ${name}` });
      keys.push([key, name]);
    }
    if (keys.length > this.limits.maxStreamsPerConnection)
      return refuse(socket, 400, { code: 2, msg: 'Invalid request: too many streams' });
    let user: string | undefined;
    if (route.listenKey !== undefined) {
      user = await listenKeyOwner(this.hot, this.listenKeys, route.listenKey);
      if (user === undefined)
        return refuse(socket, 400, { code: -1125, msg: 'This listenKey does not exist.' });
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const c = new StreamConnection(ws, ip, route.surface, route.combined, this.limits.maxBufferedBytes);
      this.accept(c);
      for (const [key, name] of keys) this.hub.subscribe(c, key, name);
      if (user !== undefined) this.hub.attachUser(c, user, route.listenKey!);
    });
  }

  /** `/api/v1/ws`: a token given at connect must be good (401 INVALID_TOKEN); none is fine (public only). */
  private upgradeNative(req: IncomingMessage, socket: Duplex, head: Buffer, ip: string): void {
    const token = connectToken(req);
    let login: NativeLogin | undefined;
    if (token !== undefined) {
      const r = this.native.login(token);
      if ('error' in r) return refuse(socket, 401, { error: r.error, code: 'INVALID_TOKEN' });
      login = r;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const c = new StreamConnection(ws, ip, 'native', false, this.limits.maxBufferedBytes);
      c.native = NativeChannels.state();
      this.accept(c);
      if (login) this.native.authenticate(c, login);
    });
  }

  /** The canonical key of a market stream served on `surface`, undefined when it is none. */
  private keyOf(name: string, surface: StreamSurface): string | undefined {
    const s = parseStreamName(name);
    if (!s || surface === 'native' || !servedOn(s, surface)) return undefined;
    if ('symbol' in s && !this.markets.find(s.symbol)) return undefined;
    return streamKey(s);
  }

  private accept(c: StreamConnection): void {
    this.hub.connections.add(c);
    this.perIp.set(c.ip, (this.perIp.get(c.ip) ?? 0) + 1);
    const lifetime = setTimeout(
      () => c.close(CLOSE.expired, 'connection lifetime reached'),
      this.limits.lifetimeMs,
    );
    lifetime.unref();
    let queue = Promise.resolve();
    c.socket.on('pong', () => (c.alive = true));
    c.socket.on('message', (data, isBinary) => {
      if (!c.admitRequest(Date.now(), this.limits.requestsPerSecond))
        return c.close(CLOSE.policy, 'too many requests');
      const text = isBinary ? '' : data.toString();
      queue = queue.then(() => this.handle(c, text)).catch((err: unknown) => this.logger.error(String(err)));
    });
    c.socket.on('close', () => {
      clearTimeout(lifetime);
      this.hub.remove(c);
      const left = (this.perIp.get(c.ip) ?? 1) - 1;
      if (left > 0) this.perIp.set(c.ip, left);
      else this.perIp.delete(c.ip);
    });
    c.socket.on('error', () => c.socket.terminate());
  }

  private async handle(c: StreamConnection, text: string): Promise<void> {
    if (c.native) return this.native.handle(c, text, this.limits.maxStreamsPerConnection);
    const r = parseStreamRequest(text);
    c.send(JSON.stringify(isRequestError(r) ? r : await this.answer(c, r)));
  }

  private async answer(c: StreamConnection, r: StreamRequest): Promise<unknown> {
    switch (r.method) {
      case 'LIST_SUBSCRIPTIONS':
        return { result: [...c.subscriptions.values(), ...(c.listenKey ? [c.listenKey] : [])], id: r.id };
      case 'GET_PROPERTY':
        return { result: c.combined, id: r.id };
      case 'SET_PROPERTY':
        c.combined = r.value;
        return { result: null, id: r.id };
      case 'UNSUBSCRIBE':
        for (const name of r.params) {
          const key = this.keyOf(name, c.surface);
          if (key !== undefined) this.hub.unsubscribe(c, key);
        }
        return { result: null, id: r.id };
      case 'SUBSCRIBE':
        return this.subscribe(c, r.params, r.id);
    }
  }

  private async subscribe(c: StreamConnection, names: string[], id: StreamRequest['id']): Promise<unknown> {
    const keys: [string, string][] = [];
    let listenKey: string | undefined;
    for (const name of names) {
      if (LISTEN_KEY.test(name) && (c.surface === 'all' || c.surface === 'private')) {
        listenKey = name;
        continue;
      }
      const key = this.keyOf(name, c.surface);
      if (key === undefined) return requestError(2, `Invalid request: invalid stream ${name}`, id);
      keys.push([key, name]);
    }
    const total = new Set([...c.subscriptions.keys(), ...keys.map(([k]) => k)]).size;
    if (total > this.limits.maxStreamsPerConnection)
      return requestError(
        2,
        `Invalid request: too many streams (at most ${this.limits.maxStreamsPerConnection})`,
        id,
      );
    if (listenKey !== undefined) {
      const user = await listenKeyOwner(this.hot, this.listenKeys, listenKey);
      if (user === undefined) return requestError(2, 'Invalid request: invalid listenKey', id);
      this.hub.attachUser(c, user, listenKey);
    }
    for (const [key, name] of keys) this.hub.subscribe(c, key, name);
    return { result: null, id };
  }

  private ping(): void {
    for (const c of this.hub.connections) {
      if (!c.alive) {
        c.close(CLOSE.policy, 'no pong');
        continue;
      }
      c.alive = false;
      if (c.open) c.socket.ping();
    }
  }

  /**
   * A user-data connection whose key is gone gets Binance's listenKeyExpired event and is closed; a
   * native one whose login token expired gets an INVALID_TOKEN error frame and is closed.
   */
  async checkListenKeys(now = Date.now()): Promise<void> {
    this.native.expireLogins(now);
    for (const c of [...this.hub.connections]) {
      if (c.listenKey === undefined || !c.open) continue;
      if ((await listenKeyOwner(this.hot, this.listenKeys, c.listenKey, now)) !== undefined) continue;
      c.send(JSON.stringify({ e: 'listenKeyExpired', E: now, listenKey: c.listenKey }));
      c.close(CLOSE.expired, 'listen key expired');
    }
  }
}
