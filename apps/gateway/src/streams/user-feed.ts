import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { Bus, type BusMessage, type Subscription } from '@perp/bus';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { type AccountEvent, TOPICS } from '@perp/contracts';
import {
  decodePlace,
  encodePlace,
  MarketRegistry,
  missedRange,
  placeAfter,
  placeBefore,
  type UserStreamPlace,
} from '@perp/domain';
import { ListenKeyRepository } from '@perp/persistence';
import { LISTEN_KEY_KEYS, LISTEN_KEY_TTL_MS } from '../fapi/account/listen-keys';
import { nativeConditionalView, nativeRecordView } from '../native/trading/native-order-view';
import { nativeBalanceUpdate, nativePositionUpdate } from './native-payloads';
import type { StreamConnection } from './stream-connection';
import { StreamFeeds } from './stream-feeds';
import { StreamHub } from './stream-hub';
import { UserEventRenderer } from './user-events';
import { type AccountChange, forceOrderPayload } from './user-payloads';

const TOPIC = TOPICS.accountEvents.name;
/** Longest a replay of missed events may take before the connection is closed (the client reconnects). */
const REPLAY_TIMEOUT_MS = 60_000;
/** How often the places recorded in the hot store are also saved with the keys in Postgres. */
const CURSOR_SAVE_MS = 1_000;

/**
 * This replica's user data streams: the account events topic read with a consumer group of its
 * own, from the latest on, rendered (user-events.ts) for the users connected here, in the order
 * risk produced them; also the native private channels (orders, positions, balances, algoOrders)
 * of the users authenticated on /api/v1/ws, and completed liquidations on the public `forceOrder`
 * streams (both live only: they are not replayed).
 *
 * No loss across a reconnect (to this or another replica, a restarted one included): each listen
 * key records in the hot store the place of the last event a connection of it handed to the
 * kernel. A connection of a key with a recorded place first replays the key's missed events from
 * the log (a short-lived consumer seeking the user's partition there), holding live events
 * meanwhile; places drop what was already sent, so nothing comes twice, save the events a crash
 * (kill -9) caught between their kernel write and their place's record. The places are also saved
 * with the keys in Postgres every second and at shutdown, for a hot store that loses them (the
 * embedded exchange's, after a restart): then up to a second of events may come again. See README.md.
 */
@Injectable()
export class UserFeed implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('UserFeed');
  private readonly renderer: UserEventRenderer;
  private readonly replays = new Set<Subscription>();
  private closed = false;
  /** Places recorded since the last save to Postgres, by listen key. */
  private readonly unsaved = new Map<string, string>();
  private saver?: NodeJS.Timeout;

  constructor(
    private readonly bus: Bus,
    private readonly hub: StreamHub,
    private readonly markets: MarketRegistry,
    @Inject(HOT_STORE) private readonly hot: HotStore,
    private readonly listenKeys: ListenKeyRepository,
    feeds: StreamFeeds,
  ) {
    this.renderer = new UserEventRenderer(
      markets,
      this.logger,
      (user) => hub.hasUser(user),
      (change) => this.onGroup(change),
    );
    hub.onAttachUser = (c) => void this.resume(c);
    hub.onUserWritten = (c, place) => void this.record(c, place);
    feeds.on(TOPIC, (ms) => this.onAccountEvents(ms));
  }

  onApplicationBootstrap(): void {
    this.saver = setInterval(() => void this.saveCursors(), CURSOR_SAVE_MS).unref();
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    clearInterval(this.saver);
    await Promise.all([...this.replays].map((s) => s.close()));
    await this.saveCursors();
  }

  /** The places recorded since the last save, into Postgres in one statement. */
  async saveCursors(): Promise<void> {
    if (this.unsaved.size === 0) return;
    const rows = [...this.unsaved].map(([listenKey, cursor]) => ({ listenKey, cursor }));
    this.unsaved.clear();
    await this.listenKeys.saveCursors(rows).catch((e: unknown) => {
      // Saved at the next round unless a newer place came meanwhile.
      for (const r of rows) if (!this.unsaved.has(r.listenKey)) this.unsaved.set(r.listenKey, r.cursor);
      this.logger.warn(`listen key places not saved: ${String(e)}`);
    });
  }

  private onAccountEvents(ms: readonly BusMessage[]): void {
    for (const e of this.renderer.render(ms, Date.now())) this.hub.publishUser(e.user, e.data, e.place);
  }

  /** One input's events of one user, whole: the native private channels and the liquidation streams. */
  private onGroup(change: AccountChange): void {
    for (const e of change.events)
      if (e.type === 'forceOrder' && e.forceOrder.autoCloseType === 'LIQUIDATION') this.liquidation(e);
    if (this.hub.hasNativeUser(change.user)) this.emitNative(change);
  }

  /** The native private channels' updates of one input, in the order risk emitted its events. */
  private emitNative(change: AccountChange): void {
    const publish = (kind: string, data: unknown) => this.hub.publishNative(change.user, kind, data);
    for (const e of change.events) {
      if (e.type === 'order') publish('orders', nativeRecordView(e.order, this.markets.find(e.order.symbol)));
      else if (e.type === 'algoOrder') publish('algoOrders', nativeConditionalView(e.algo));
      else if (e.type === 'position')
        publish('positions', nativePositionUpdate(e, this.markets.find(e.symbol)));
      else if (e.type === 'balance') publish('balances', nativeBalanceUpdate(e));
    }
  }

  /** A completed liquidation on the public liquidation streams (whoever's it was: anonymous there). */
  private liquidation(e: Extract<AccountEvent, { type: 'forceOrder' }>): void {
    const m = this.markets.find(e.forceOrder.symbol);
    const key = `${m?.symbol ?? e.forceOrder.symbol}@forceOrder`;
    if (!this.hub.has(key) && !this.hub.has('!forceOrder@arr')) return;
    const payload = forceOrderPayload(m, e.forceOrder, Date.now());
    this.hub.publish(key, payload);
    this.hub.publish('!forceOrder@arr', payload);
  }

  /** The key's last delivered place, for a reconnect to start after (same TTL as the key). */
  private async record(c: StreamConnection, place: UserStreamPlace): Promise<void> {
    if (c.listenKey === undefined) return;
    const cursor = encodePlace(place);
    this.unsaved.set(c.listenKey, cursor);
    await this.hot
      .set(LISTEN_KEY_KEYS.cursor(c.listenKey), cursor, { ttlMs: LISTEN_KEY_TTL_MS })
      .catch((e: unknown) => this.logger.warn(`listen key place not recorded: ${String(e)}`));
  }

  /** A connection just got a listen key: replays what the key missed, then lets live events through. */
  private async resume(c: StreamConnection): Promise<void> {
    const listenKey = c.listenKey!;
    const user = c.user!;
    if (c.held) return; // a SUBSCRIBE repeating the key while its replay runs
    c.held = [];
    try {
      const partition = this.bus.partitionFor(TOPIC, user);
      const [recorded, ends] = await Promise.all([
        this.hot.get(LISTEN_KEY_KEYS.cursor(listenKey)),
        this.bus.endOffsets(TOPIC),
      ]);
      const end = BigInt(ends.find((p) => p.partition === partition)?.offset ?? '0');
      const last = decodePlace(recorded);
      if (!last || last.partition !== partition) {
        // The key's first connection: what came before it is not the stream's.
        const first = encodePlace(placeBefore(partition, end));
        this.unsaved.set(listenKey, first);
        await this.hot.set(LISTEN_KEY_KEYS.cursor(listenKey), first, { ttlMs: LISTEN_KEY_TTL_MS });
        return;
      }
      if (!c.userPlace || placeAfter(last, c.userPlace)) c.userPlace = last;
      const missed = missedRange(last, end);
      if (missed) await this.replay(c, user, partition, missed);
    } catch (e) {
      this.logger.warn(`user stream of ${user} not resumed: ${String(e)}`);
      c.close(1011, 'missed user events could not be replayed');
    } finally {
      const held = c.held ?? [];
      c.held = undefined;
      for (const h of held) this.hub.sendUser(c, h.place, h.json);
    }
  }

  /** Sends `user`'s events of `partition` in [from, to) to `c`, rendered as the live feed does. */
  private async replay(
    c: StreamConnection,
    user: string,
    partition: number,
    { from, to }: { from: bigint; to: bigint },
  ): Promise<void> {
    if (this.closed) return;
    const renderer = new UserEventRenderer(this.markets, this.logger, (u) => u === user);
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const sub = await this.bus.subscribe({
      groupId: 'gateway.streams.replay',
      topics: [TOPIC],
      assign: [{ topic: TOPIC, partition }],
      onAssigned: (_, s) => s.seek({ topic: TOPIC, partition, offset: from.toString() }),
      batchHandler: (ms) => {
        const mine = ms.filter((m) => BigInt(m.offset) < to);
        for (const e of renderer.render(mine, Date.now()))
          this.hub.sendUser(c, e.place, JSON.stringify(e.data), true);
        if (BigInt(ms[ms.length - 1]!.offset) >= to - 1n) done();
      },
    });
    this.replays.add(sub);
    let timer: NodeJS.Timeout | undefined;
    try {
      const closed = new Promise<void>((resolve) => c.socket.once('close', () => resolve()));
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('replay timed out')), REPLAY_TIMEOUT_MS);
      });
      await Promise.race([finished, closed, timeout]);
    } finally {
      clearTimeout(timer);
      this.replays.delete(sub);
      await sub.close();
    }
  }
}
