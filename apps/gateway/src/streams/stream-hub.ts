import { Injectable } from '@nestjs/common';
import type { UserStreamPlace } from '@perp/domain';
import { StreamConnection } from './stream-connection';

/**
 * Who listens to what, in this replica's memory: canonical stream key → connections, and user
 * address → user-data connections. Feeds publish here; each event is serialized once and written
 * to every subscriber in its own framing.
 */
@Injectable()
export class StreamHub {
  private readonly streams = new Map<string, Set<StreamConnection>>();
  private readonly users = new Map<string, Set<StreamConnection>>();
  readonly connections = new Set<StreamConnection>();
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
    if (!set) this.streams.set(key, (set = new Set()));
    set.add(c);
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
    c.user = user;
    c.listenKey = listenKey;
    let set = this.users.get(user);
    if (!set) this.users.set(user, (set = new Set()));
    set.add(c);
    this.onAttachUser(c);
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
    if (c.user === undefined) return;
    const set = this.users.get(c.user);
    set?.delete(c);
    if (set?.size === 0) this.users.delete(c.user);
  }

  private corked: Set<StreamConnection> | undefined;

  /**
   * Runs `f` with each socket it writes to corked: a connection's frames of one log batch leave in
   * one write instead of one system call each.
   */
  corkWhile<T>(f: () => T): T {
    if (this.corked) return f();
    const corked = (this.corked = new Set());
    try {
      return f();
    } finally {
      this.corked = undefined;
      for (const c of corked) c.uncork();
    }
  }

  /** One event to every subscriber of `key`. */
  publish(key: string, data: unknown): void {
    const set = this.streams.get(key);
    if (!set) return;
    const json = JSON.stringify(data);
    // Most subscribers share a framing and a name: encode each distinct frame once.
    const frames = new Map<string, Buffer>();
    for (const c of set) {
      const name = c.subscriptions.get(key) ?? key;
      const id = c.combined ? `c${name}` : 'raw';
      let frame = frames.get(id);
      if (!frame) frames.set(id, (frame = Buffer.from(StreamConnection.frame(c.combined, name, json))));
      if (this.corked && !this.corked.has(c)) {
        c.cork();
        this.corked.add(c);
      }
      c.send(frame);
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
