import { Injectable } from '@nestjs/common';
import { type MarketStream, parseStreamName, type UserStreamPlace } from '@perp/domain';
import { nativeMarketData } from './native-payloads';
import { joinFrames, StreamConnection, textFrame } from './stream-connection';

/**
 * Who listens to what, in this replica's memory: canonical stream key → connections, and user
 * address → user-data connections (listen-key ones and authenticated native ones). Feeds publish
 * here; each event is serialized once per surface (Binance, native) and written to every
 * subscriber in its own framing.
 */
@Injectable()
export class StreamHub {
  /** Stream key → its subscribers, each with the name it used (the fan-out reads both at once). */
  private readonly streams = new Map<string, Map<StreamConnection, string>>();
  private readonly users = new Map<string, Set<StreamConnection>>();
  private readonly nativeUsers = new Map<string, Set<StreamConnection>>();
  /** Parsed stream keys (native frames are rendered by the stream's kind). */
  private readonly parsed = new Map<string, MarketStream | undefined>();
  readonly connections = new Set<StreamConnection>();
  /** Per symbol, the seq of the last book delta this replica read (book snapshots must reach it). */
  readonly bookSeqs = new Map<string, number>();
  /** Told of every new subscription (a feed pushes its current state to newcomers). */
  onSubscribe: (key: string) => void = () => undefined;
  /** Told of every connection a listen key was attached to (the user feed resumes its key). */
  onAttachUser: (c: StreamConnection) => void = () => undefined;
  /** Told once a user event is in a connection's socket buffer (the user feed records the place). */
  onUserWritten: (c: StreamConnection, place: UserStreamPlace) => void = () => undefined;

  has(key: string): boolean {
    return this.streams.has(key);
  }

  /** Keys with at least one subscriber. */
  keys(): IterableIterator<string> {
    return this.streams.keys();
  }

  subscribe(c: StreamConnection, key: string, name: string): void {
    c.subscriptions.set(key, name);
    let set = this.streams.get(key);
    if (!set) this.streams.set(key, (set = new Map()));
    set.set(c, name);
    this.onSubscribe(key);
  }

  unsubscribe(c: StreamConnection, key: string): void {
    c.subscriptions.delete(key);
    const set = this.streams.get(key);
    if (!set) return;
    set.delete(c);
    if (set.size === 0) this.streams.delete(key);
  }

  attachUser(c: StreamConnection, user: string, listenKey: string): void {
    // A key of another user replaces the first: left in the old set, the connection would be held
    // (and written to) until that user's last connection closed, and `remove` would never find it.
    if (c.user !== undefined && c.user !== user) {
      this.detachUser(c);
      c.userPlace = undefined; // a place on the other user's stream orders nothing of this one
    }
    c.user = user;
    c.listenKey = listenKey;
    let set = this.users.get(user);
    if (!set) this.users.set(user, (set = new Set()));
    set.add(c);
    this.onAttachUser(c);
  }

  /** A native connection authenticated as `user` (its private channels). */
  attachNative(c: StreamConnection, user: string): void {
    let set = this.nativeUsers.get(user);
    if (!set) this.nativeUsers.set(user, (set = new Set()));
    set.add(c);
  }

  hasNativeUser(user: string): boolean {
    return this.nativeUsers.has(user);
  }

  usersConnected(): IterableIterator<[string, Set<StreamConnection>]> {
    return this.users.entries();
  }

  hasUser(user: string): boolean {
    return this.users.has(user);
  }

  remove(c: StreamConnection): void {
    this.connections.delete(c);
    for (const key of [...c.subscriptions.keys()]) this.unsubscribe(c, key);
    const nativeUser = c.native?.user;
    if (nativeUser !== undefined) {
      const set = this.nativeUsers.get(nativeUser);
      set?.delete(c);
      if (set?.size === 0) this.nativeUsers.delete(nativeUser);
    }
    this.detachUser(c);
  }

  private detachUser(c: StreamConnection): void {
    if (c.user === undefined) return;
    const set = this.users.get(c.user);
    set?.delete(c);
    if (set?.size === 0) this.users.delete(c.user);
  }

  /** Connections written to since the last flush: their frames wait until then. */
  private held: StreamConnection[] = [];
  private flushing = false;

  /**
   * Every connection the fan-out writes to gathers its frames until the task that wrote ends (a
   * microtask queued behind the consumers' own): the frames of all the log batches one task
   * delivers (the memory bus's journal makes a whole loop turn's messages visible at once; Kafka,
   * one fetch) leave each connection in one write of one buffer. A write to a loopback or LAN socket
   * costs the kernel far more than the bytes it carries, and a stream write costs Node more than
   * copying a frame, so with one write per batch and connection the system calls, not the
   * rendering, set the latency. Connections that got the same frames (the same streams) share one
   * concatenated buffer. Not `setImmediate`: from the journal's own `setImmediate` that would wait
   * for the next loop turn.
   */
  private hold(c: StreamConnection): void {
    if (c.heldByHub) return;
    c.heldByHub = true;
    this.held.push(c);
    if (!this.flushing) {
      this.flushing = true;
      queueMicrotask(this.flush);
    }
  }

  /** Writes what the fan-out gathered (also called when the server shuts down). */
  readonly flush = (): void => {
    this.flushing = false;
    const held = this.held;
    this.held = [];
    let lastFrames: Buffer[] | undefined;
    let lastBytes: Buffer | undefined;
    for (const c of held) {
      c.heldByHub = false;
      const frames = c.takeFrames();
      if (!frames) continue;
      if (!lastFrames || !sameFrames(frames, lastFrames)) {
        lastFrames = frames;
        lastBytes = joinFrames(frames);
      }
      c.writeFrames(frames, lastBytes);
    }
  };

  /** One event to every subscriber of `key`. */
  publish(key: string, data: unknown): void {
    const set = this.streams.get(key);
    if (!set) return;
    let json: string | undefined;
    let nativeJson: string | undefined;
    // Most subscribers share a framing and a name: encode each distinct frame once, as a whole
    // WebSocket frame, and hand the same bytes to every socket.
    let rawFrame: Buffer | undefined;
    let combinedName: string | undefined;
    let combinedFrame: Buffer | undefined;
    let others: Map<string, Buffer> | undefined;
    // forEach, not for-of: an entry array per subscriber and event is garbage at a million frames/s.
    set.forEach((name, c) => {
      this.hold(c);
      if (!c.native) {
        let frame: Buffer;
        if (!c.combined) frame = rawFrame ??= textFrame((json ??= JSON.stringify(data)));
        else if (combinedName === undefined || combinedName === name) {
          combinedName = name;
          frame = combinedFrame ??= textFrame(
            StreamConnection.frame(true, name, (json ??= JSON.stringify(data))),
          );
        } else {
          others ??= new Map();
          let f = others.get(name);
          if (!f)
            others.set(
              name,
              (f = textFrame(StreamConnection.frame(true, name, (json ??= JSON.stringify(data))))),
            );
          frame = f;
        }
        c.queueFrame(frame);
        return;
      }
      const held = c.native.pendingBooks.get(key);
      if (held) held.push(data);
      else c.sendChannel(name, (nativeJson ??= JSON.stringify(this.nativeData(key, data))));
    });
  }

  /** The native channel data of a stream event. */
  nativeData(key: string, data: unknown): unknown {
    if (!this.parsed.has(key)) this.parsed.set(key, parseStreamName(key));
    const s = this.parsed.get(key);
    return s ? nativeMarketData(s, data as Record<string, unknown>) : data;
  }

  /** One private channel update to `user`'s native connections subscribed to `kind`. */
  publishNative(user: string, kind: string, data: unknown): void {
    const set = this.nativeUsers.get(user);
    if (!set) return;
    let json: string | undefined;
    for (const c of set) {
      const name = c.native?.channels.get(kind);
      if (name !== undefined) c.sendChannel(name, (json ??= JSON.stringify(data)));
    }
  }

  /**
   * One user-data event to every connection of `user` (raw framing: Binance's user streams), each
   * connection sending it once, after the events before its place.
   */
  publishUser(user: string, data: unknown, place: UserStreamPlace): void {
    const set = this.users.get(user);
    if (!set) return;
    const json = JSON.stringify(data);
    for (const c of set) this.sendUser(c, place, json);
  }

  sendUser(c: StreamConnection, place: UserStreamPlace, json: string, replayed = false): void {
    c.sendUser(place, json, () => this.onUserWritten(c, place), replayed);
  }
}

/** The same frames (the same buffers) in the same order. */
function sameFrames(a: readonly Buffer[], b: readonly Buffer[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
