import { Injectable } from '@nestjs/common';
import { JwtTokenService } from '@perp/auth';
import { NativeError } from '@perp/contracts';
import { type Market, MarketRegistry, parseNativeChannel, streamKey } from '@perp/domain';
import { DepthCache } from '../fapi/market/depth-cache';
import {
  isNativeError,
  type NativeErrorFrame,
  type NativeId,
  nativeError,
  parseNativeRequest,
} from './native-requests';
import { nativeBookSnapshot } from './native-payloads';
import { CLOSE, type NativeState, type StreamConnection } from './stream-connection';
import { StreamHub } from './stream-hub';

/** How long a book snapshot may wait for the projection to reach the first held diff. */
const SNAPSHOT_RETRY_MS = 50;
const SNAPSHOT_TRIES = 100;

/** A verified login token: its user and when it expires (ms). */
export interface NativeLogin {
  user: string;
  expiresAt: number;
}

type Resolved =
  | { scope: 'public'; name: string; key: string; market: Market; book: boolean }
  | { scope: 'private'; name: string; kind: string };

const withId = (id: NativeId | undefined) => (id === undefined ? {} : { id });

/**
 * The native WebSocket API (`/api/v1/ws`, see README.md): channel requests of one connection.
 * Public channels ride the hub's market streams (the Binance-compatible feeds), private ones the
 * user's account events; a request with any bad channel is answered with one error frame and
 * changes nothing.
 */
@Injectable()
export class NativeChannels {
  constructor(
    private readonly hub: StreamHub,
    private readonly markets: MarketRegistry,
    private readonly depth: DepthCache,
    private readonly tokens: JwtTokenService,
  ) {}

  static state(): NativeState {
    return { user: undefined, expiresAt: undefined, channels: new Map(), pendingBooks: new Map() };
  }

  /** The login of a JWT, or the INVALID_TOKEN message. */
  login(token: string | undefined): NativeLogin | { error: string } {
    try {
      const { address } = this.tokens.verify(token);
      const claims = JSON.parse(Buffer.from(token!.split('.')[1]!, 'base64url').toString()) as {
        exp: number;
      };
      return { user: address, expiresAt: claims.exp * 1000 };
    } catch (e) {
      return { error: e instanceof NativeError ? e.message : 'Invalid token.' };
    }
  }

  /** Binds a connection to a login (at connect or by `op: auth`). */
  authenticate(c: StreamConnection, login: NativeLogin): void {
    const state = c.native!;
    state.user = login.user;
    state.expiresAt = login.expiresAt;
    this.hub.attachNative(c, login.user);
  }

  /** Answers one text frame of a native connection. */
  async handle(c: StreamConnection, text: string, maxStreams: number): Promise<void> {
    const r = parseNativeRequest(text);
    if (isNativeError(r)) return void c.send(JSON.stringify(r));
    switch (r.op) {
      case 'ping':
        return void c.send(JSON.stringify({ type: 'pong', time: Date.now(), ...withId(r.id) }));
      case 'list': {
        const channels = [...c.subscriptions.values(), ...c.native!.channels.values()];
        return void c.send(JSON.stringify({ type: 'subscriptions', channels, ...withId(r.id) }));
      }
      case 'auth':
        return void c.send(JSON.stringify(this.auth(c, r.token, r.id)));
      case 'unsubscribe':
        return void c.send(JSON.stringify(this.unsubscribe(c, r.channels, r.id)));
      case 'subscribe':
        return this.subscribe(c, r.channels, r.id, maxStreams);
    }
  }

  private auth(c: StreamConnection, token: string, id?: NativeId): unknown {
    const login = this.login(token);
    if ('error' in login) return nativeError('INVALID_TOKEN', login.error, id);
    const current = c.native!.user;
    if (current !== undefined && current !== login.user)
      return nativeError('INVALID_REQUEST', 'Already authenticated as another user: reconnect.', id);
    this.authenticate(c, login);
    return { type: 'authenticated', user: login.user, expires_at: login.expiresAt, ...withId(id) };
  }

  /** Every channel of a request, or the error answering the whole request. */
  private resolve(c: StreamConnection, names: string[], id?: NativeId): Resolved[] | NativeErrorFrame {
    const out: Resolved[] = [];
    for (const name of names) {
      const ch = parseNativeChannel(name);
      if (!ch) return nativeError('INVALID_CHANNEL', `Invalid channel ${name}.`, id);
      if (ch.scope === 'private') {
        if (c.native!.user === undefined)
          return nativeError(
            'INVALID_TOKEN',
            `Channel ${name} is private: authenticate first ({"op":"auth","token":"<JWT>"} or ?token= at connect).`,
            id,
          );
        out.push({ scope: 'private', name, kind: ch.kind });
        continue;
      }
      const market = this.markets.find(ch.symbol);
      if (!market) return nativeError('INVALID_SYMBOL', `No market ${ch.symbol} (channel ${name}).`, id);
      out.push({ scope: 'public', name, key: streamKey(ch.stream), market, book: ch.kind === 'orderbook' });
    }
    return out;
  }

  private async subscribe(c: StreamConnection, names: string[], id: NativeId | undefined, max: number) {
    const resolved = this.resolve(c, names, id);
    if (!Array.isArray(resolved)) return void c.send(JSON.stringify(resolved));
    const state = c.native!;
    const keys = new Set(c.subscriptions.keys());
    const kinds = new Set(state.channels.keys());
    for (const r of resolved) {
      if (r.scope === 'public') keys.add(r.key);
      else kinds.add(r.kind);
    }
    if (keys.size + kinds.size > max)
      return void c.send(JSON.stringify(nativeError('LIMIT_REACHED', `At most ${max} channels.`, id)));
    const books: Extract<Resolved, { scope: 'public' }>[] = [];
    for (const r of resolved) {
      if (r.scope === 'private') {
        state.channels.set(r.kind, r.name);
        continue;
      }
      if (r.book && !state.pendingBooks.has(r.key)) {
        // Diffs from now on wait for the snapshot; the first frames are the snapshot, then them.
        state.pendingBooks.set(r.key, []);
        books.push(r);
      }
      this.hub.subscribe(c, r.key, r.name);
    }
    c.send(JSON.stringify({ type: 'subscribed', channels: names, ...withId(id) }));
    await Promise.all(
      books.map((b) => this.snapshot(c, b.market, b.key, this.hub.bookSeqs.get(b.market.symbol) ?? 0)),
    );
  }

  /**
   * The book snapshot, then the diffs held since the subscription that it does not contain. The
   * projected book may be behind the diffs this replica read: it is read again until it reaches
   * both `seen` (the last diff read before the subscription, which no window holds) and the first
   * held diff's `prev_seq`, so the client's book has no gap.
   */
  private async snapshot(c: StreamConnection, m: Market, key: string, seen: number): Promise<void> {
    const state = c.native!;
    for (let attempt = 1; ; attempt++) {
      const book = await this.depth.book(m);
      const held = state.pendingBooks.get(key) as { u: number; pu: number }[] | undefined;
      if (!held || !c.open) return; // unsubscribed or gone meanwhile
      const seq = Math.max(book.seq, 0);
      const needed = Math.max(seen, held[0]?.pu ?? 0);
      if (seq < needed && attempt < SNAPSHOT_TRIES) {
        await new Promise((r) => setTimeout(r, SNAPSHOT_RETRY_MS));
        continue;
      }
      state.pendingBooks.delete(key);
      const name = c.subscriptions.get(key) ?? key;
      c.sendChannel(name, JSON.stringify(nativeBookSnapshot(m, book)), 'snapshot');
      for (const d of held) if (d.u > seq) c.sendChannel(name, JSON.stringify(this.hub.nativeData(key, d)));
      return;
    }
  }

  private unsubscribe(c: StreamConnection, names: string[], id?: NativeId): unknown {
    const state = c.native!;
    const drop: (() => void)[] = [];
    for (const name of names) {
      const ch = parseNativeChannel(name);
      if (!ch) return nativeError('INVALID_CHANNEL', `Invalid channel ${name}.`, id);
      if (ch.scope === 'private') drop.push(() => state.channels.delete(ch.kind));
      else {
        const key = streamKey(ch.stream);
        drop.push(() => {
          state.pendingBooks.delete(key);
          this.hub.unsubscribe(c, key);
        });
      }
    }
    for (const d of drop) d();
    return { type: 'unsubscribed', channels: names, ...withId(id) };
  }

  /** Native connections whose login expired are told so and closed (4001). */
  expireLogins(now: number): void {
    for (const c of this.hub.connections) {
      const expiresAt = c.native?.expiresAt;
      if (expiresAt === undefined || expiresAt > now || !c.open) continue;
      c.send(JSON.stringify(nativeError('INVALID_TOKEN', 'Token expired.')));
      c.close(CLOSE.expired, 'token expired');
    }
  }
}
