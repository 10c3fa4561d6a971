import { placeAfter, type UserStreamPlace } from '@perp/domain';
import type { Socket } from 'node:net';
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
  /** The place of the last user data event sent: anything at or before it is not sent again. */
  userPlace: UserStreamPlace | undefined;
  /** Live user events held while the events this key missed are replayed (undefined: none). */
  held: { place: UserStreamPlace; json: string }[] | undefined;
  /** Set on native connections only. */
  native: NativeState | undefined;
  alive = true;
  /** Holding frames for the hub's flush at the end of the task that wrote them. */
  heldByHub = false;
  /** Whole frames gathered since the last flush, written as one (`takeFrames`, `writeFrames`). */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
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

  /**
   * Sends a text frame; false (and the connection closed) when the client cannot keep up.
   * `written` runs once the frame is in the kernel's socket buffer (it reaches the client even if
   * this process dies next).
   */
  send(text: string | Buffer, written?: () => void): boolean {
    if (!this.open) return false;
    if (this.socket.bufferedAmount + this.pendingBytes + text.length > this.maxBufferedBytes) {
      this.close(CLOSE.slowClient, 'slow client: send buffer full');
      return false;
    }
    // Frames gathered for the hub's flush go first: a connection's frames leave in send order.
    const held = this.takeFrames();
    if (held) this.writeFrames(held);
    // A Buffer goes out as a text frame too: the fan-out encodes each frame once for everyone.
    this.socket.send(text, { binary: false }, written && ((err) => !err && written()));
    return true;
  }

  /**
   * Gathers a whole WebSocket frame (`textFrame`) for the hub's flush, which writes a connection's
   * frames as one buffer (`writeFrames`); false (and the connection closed) when the client cannot
   * keep up.
   */
  queueFrame(frame: Buffer): boolean {
    if (!this.open) return false;
    if (this.socket.bufferedAmount + this.pendingBytes + frame.length > this.maxBufferedBytes) {
      this.close(CLOSE.slowClient, 'slow client: send buffer full');
      return false;
    }
    this.pending.push(frame);
    this.pendingBytes += frame.length;
    return true;
  }

  /** The frames gathered since the last flush, handed over (undefined: none). */
  takeFrames(): Buffer[] | undefined {
    if (this.pending.length === 0) return undefined;
    const frames = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    return frames;
  }

  /**
   * `frames` (whole frames) written to the TCP socket as they are, in one buffer (`bytes`, their
   * concatenation, which many subscribers can share), where `ws.send` would frame each text again
   * per connection. Only while `ws` has nothing of its own queued (no extension is ever negotiated
   * here, so its sender never queues) and the socket is open; else frame by frame through `ws`.
   */
  writeFrames(frames: readonly Buffer[], bytes = joinFrames(frames)): void {
    if (!this.open) return;
    const tcp = this.tcp();
    if (tcp && this.socket.extensions === '' && !tcp.destroyed) tcp.write(bytes);
    else for (const f of frames) this.socket.send(f.subarray(frameHeaderLength(f)), { binary: false });
  }

  /**
   * A user data event at `place`: held during a replay, dropped when the client already has it,
   * else sent; `written` as in `send`.
   */
  sendUser(place: UserStreamPlace, json: string, written: () => void, replayed = false): void {
    if (this.held && !replayed) {
      this.held.push({ place, json });
      return;
    }
    if (this.userPlace && !placeAfter(place, this.userPlace)) return;
    this.userPlace = place;
    this.sendEvent(this.listenKey ?? '', json, written);
  }

  /** The text of an event in a framing: raw, or wrapped as `{stream, data}` under `name`. */
  static frame(combined: boolean, name: string, dataJson: string): string {
    return combined ? `{"stream":${JSON.stringify(name)},"data":${dataJson}}` : dataJson;
  }

  /** An event of a stream, in the connection's framing, under the name the client used. */
  sendEvent(name: string, dataJson: string, written?: () => void): boolean {
    return this.send(StreamConnection.frame(this.combined, name, dataJson), written);
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

  /** ws keeps its TCP socket private; every version has `_socket`. */
  private tcp(): Socket | undefined {
    return (this.socket as unknown as { _socket?: Socket })._socket;
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.close(code, reason);
    // A peer that never answers the close handshake is cut off.
    setTimeout(() => this.socket.terminate(), 2000).unref();
  }
}

/** RFC 6455 framing of a server-to-client text message (FIN, no mask, no extension bits). */
export function textFrame(text: string): Buffer {
  const length = Buffer.byteLength(text);
  const header = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(header + length);
  frame[0] = 0x81;
  if (header === 2) frame[1] = length;
  else if (header === 4) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(length), 2);
  }
  frame.write(text, header, 'utf8');
  return frame;
}

function frameHeaderLength(frame: Buffer): number {
  const l = frame[1]! & 0x7f;
  return l < 126 ? 2 : l === 126 ? 4 : 10;
}

/** Whole frames as one buffer (the frame itself when there is one). */
export function joinFrames(frames: readonly Buffer[]): Buffer {
  return frames.length === 1 ? frames[0]! : Buffer.concat(frames);
}
