import type { WebSocket } from 'ws';

/** Close codes the server uses (RFC 6455 and the 4000 private range). */
export const CLOSE = {
  shutdown: 1001,
  policy: 1008,
  /** The client fell behind: its unsent buffer passed the limit. */
  slowClient: 4008,
  /** 24 h connection lifetime reached, or the listen key expired. */
  expired: 4001,
} as const;

/** Which streams a path serves (Binance's split paths and the legacy ones; `native`: /api/v1/ws). */
export type StreamSurface = 'all' | 'public' | 'market' | 'private' | 'native';

/** What a native (`/api/v1/ws`) connection holds beyond its market subscriptions. */
export interface NativeState {
  /** The JWT's user, once authenticated (at connect or by `op: auth`). */
  user: string | undefined;
  /** When the login token expires (ms); `op: auth` with a fresh token moves it. */
  expiresAt: number | undefined;
  /** Private channel kind → the name as the client sent it. */
  readonly channels: Map<string, string>;
  /** Order book stream keys whose snapshot is being read: their diffs wait here meanwhile. */
  readonly pendingBooks: Map<string, unknown[]>;
}

/**
 * One client socket: the streams it holds (canonical key → the name as the client sent it), its
 * framing (raw or combined) and a bounded send buffer. A client whose unsent bytes pass
 * `maxBufferedBytes` is closed with a reason instead of slowing the fan-out for everyone else.
 */
export class StreamConnection {
  readonly subscriptions = new Map<string, string>();
  /** User data: the listen key and its owner, once one is attached. */
  listenKey: string | undefined;
  user: string | undefined;
  /** Set on native connections only. */
  native: NativeState | undefined;
  alive = true;
  private messages = 0;
  private windowStart = 0;
  private closed = false;

  constructor(
    readonly socket: WebSocket,
    readonly ip: string,
    readonly surface: StreamSurface,
    public combined: boolean,
    private readonly maxBufferedBytes: number,
  ) {}

  get open(): boolean {
    return !this.closed && this.socket.readyState === this.socket.OPEN;
  }

  /** Sends a text frame; false (and the connection closed) when the client cannot keep up. */
  send(text: string): boolean {
    if (!this.open) return false;
    if (this.socket.bufferedAmount + text.length > this.maxBufferedBytes) {
      this.close(CLOSE.slowClient, 'slow client: send buffer full');
      return false;
    }
    this.socket.send(text);
    return true;
  }

  /** An event of a stream, in the connection's framing, under the name the client used. */
  sendEvent(name: string, dataJson: string): boolean {
    return this.send(this.combined ? `{"stream":${JSON.stringify(name)},"data":${dataJson}}` : dataJson);
  }

  /** A native channel's frame (`type` update or snapshot) under the name the client used. */
  sendChannel(name: string, dataJson: string, type: 'update' | 'snapshot' = 'update'): boolean {
    return this.send(`{"type":"${type}","channel":${JSON.stringify(name)},"data":${dataJson}}`);
  }

  /** Counts an incoming request; false past `perSecond` in the current second. */
  admitRequest(now: number, perSecond: number): boolean {
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.messages = 0;
    }
    return ++this.messages <= perSecond;
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.close(code, reason);
    // A peer that never answers the close handshake is cut off.
    setTimeout(() => this.socket.terminate(), 2000).unref();
  }
}
