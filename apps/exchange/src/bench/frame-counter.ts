/**
 * A WebSocket client that only counts the server's text messages (the streams benchmark's
 * non-sampled connections): the opening handshake of RFC 6455 over node:http, then each frame's
 * header read off the socket and its payload skipped, with no per-frame event, copy or decoding.
 * Pings are answered (masked pongs, as a client must send), a close frame ends the count.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { Socket } from 'node:net';

export interface CountingSocket {
  frames: number;
  closed?: string;
  terminate: () => void;
}

const OP_TEXT = 0x1;
const OP_CLOSE = 0x8;
const OP_PING = 0x9;

/** Connects to `address` (ws://…) from `localAddress`; resolves once the handshake is done. */
export function openCountingSocket(address: string, localAddress: string): Promise<CountingSocket> {
  const url = new URL(address.replace(/^ws/, 'http'));
  return new Promise((resolve, reject) => {
    const req = request({
      host: url.hostname,
      port: url.port,
      path: `${url.pathname}${url.search}`,
      localAddress,
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
      },
    });
    req.once('response', (res) => reject(new Error(`no upgrade: HTTP ${res.statusCode}`)));
    req.once('error', reject);
    req.once('upgrade', (_res, socket: Socket, head: Buffer) => {
      const c: CountingSocket = { frames: 0, terminate: () => socket.destroy() };
      const reader = new FrameReader(c, socket);
      if (head.length) reader.read(head);
      socket.on('data', (chunk: Buffer) => reader.read(chunk));
      socket.on('close', () => (c.closed ??= 'socket closed'));
      socket.on('error', () => undefined);
      resolve(c);
    });
    req.end();
  });
}

/** Server frames are never masked: a header is 2, 4 or 10 bytes, then the payload. */
class FrameReader {
  private header = Buffer.alloc(10);
  private have = 0;
  private skip = 0;
  /** Payload of a control frame being gathered (ping or close), else undefined. */
  private control: { op: number; data: Buffer; have: number } | undefined;

  constructor(
    private readonly c: CountingSocket,
    private readonly socket: Socket,
  ) {}

  read(chunk: Buffer): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - i);
        if (this.control) {
          chunk.copy(this.control.data, this.control.have, i, i + n);
          this.control.have += n;
        }
        this.skip -= n;
        i += n;
        if (this.skip === 0 && this.control) this.controlDone();
        continue;
      }
      this.header[this.have++] = chunk[i++]!;
      if (this.have < 2) continue;
      const len7 = this.header[1]! & 0x7f;
      const need = len7 < 126 ? 2 : len7 === 126 ? 4 : 10;
      if (this.have < need) continue;
      const length =
        len7 < 126
          ? len7
          : len7 === 126
            ? this.header.readUInt16BE(2)
            : Number(this.header.readBigUInt64BE(2));
      const fin = (this.header[0]! & 0x80) !== 0;
      const op = this.header[0]! & 0x0f;
      this.have = 0;
      if (op === OP_TEXT && fin) this.c.frames++;
      if (op === OP_PING || op === OP_CLOSE) this.control = { op, data: Buffer.alloc(length), have: 0 };
      this.skip = length;
      if (length === 0 && this.control) this.controlDone();
    }
  }

  private controlDone(): void {
    const { op, data } = this.control!;
    this.control = undefined;
    if (op === OP_CLOSE) {
      this.c.closed = `${data.length >= 2 ? data.readUInt16BE(0) : 1005} ${data.subarray(2).toString()}`;
      this.socket.end();
    } else this.socket.write(maskedFrame(0x8a, data)); // pong
  }
}

/** A client frame (FIN + opcode in `first`), masked as RFC 6455 requires; control payloads are < 126. */
function maskedFrame(first: number, payload: Buffer): Buffer {
  const mask = randomBytes(4);
  const frame = Buffer.alloc(6 + payload.length);
  frame[0] = first;
  frame[1] = 0x80 | payload.length;
  mask.copy(frame, 2);
  for (let i = 0; i < payload.length; i++) frame[6 + i] = payload[i]! ^ mask[i % 4]!;
  return frame;
}
