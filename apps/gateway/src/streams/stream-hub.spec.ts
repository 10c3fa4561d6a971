import type { WebSocket } from 'ws';
import type { UserStreamPlace } from '@perp/domain';
import { StreamConnection } from './stream-connection';
import { StreamHub } from './stream-hub';

/** The text payloads of the whole (short) frames in one write. */
function payloads(bytes: Buffer): string[] {
  const out: string[] = [];
  for (let i = 0; i < bytes.length;) {
    const length = bytes[i + 1]! & 0x7f;
    out.push(bytes.subarray(i + 2, i + 2 + length).toString());
    i += 2 + length;
  }
  return out;
}

/** A connection over a stand-in `ws` socket whose TCP writes are recorded, one entry per write. */
function connection(writes: string[][], written: Buffer[] = [], combined = false): StreamConnection {
  const socket = {
    readyState: 1,
    OPEN: 1,
    bufferedAmount: 0,
    extensions: '',
    _socket: {
      destroyed: false,
      write: (bytes: Buffer) => {
        written.push(bytes);
        writes.push(payloads(bytes));
      },
    },
    send: (data: string | Buffer) => writes.push([`send:${String(data)}`]),
  };
  return new StreamConnection(socket as unknown as WebSocket, '127.0.0.1', 'all', combined, 1 << 20);
}

const endOfTask = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('StreamHub fan-out', () => {
  it('writes what one task published at its end, one write per connection, the same bytes for all', async () => {
    const hub = new StreamHub();
    const writes: string[][][] = [[], []];
    const buffers: Buffer[][] = [[], []];
    for (let i = 0; i < 2; i++)
      hub.subscribe(connection(writes[i]!, buffers[i]!), 'btcusdt@aggTrade', 'btcusdt@aggTrade');
    hub.publish('btcusdt@aggTrade', { a: 1 });
    hub.publish('btcusdt@aggTrade', { a: 2 });
    expect(writes).toEqual([[], []]);
    await endOfTask();
    expect(writes).toEqual([[['{"a":1}', '{"a":2}']], [['{"a":1}', '{"a":2}']]]);
    // One concatenation shared by the connections that got the same frames.
    expect(buffers[0]![0]).toBe(buffers[1]![0]);
    hub.publish('btcusdt@aggTrade', { a: 3 });
    await endOfTask();
    expect(writes[0]).toEqual([['{"a":1}', '{"a":2}'], ['{"a":3}']]);
  });

  it('frames each subscriber under the name it used, raw or combined', async () => {
    const hub = new StreamHub();
    const raw: string[][] = [];
    const combined: string[][] = [];
    hub.subscribe(connection(raw), 'btcusdt@aggTrade', 'btcusdt@aggTrade');
    hub.subscribe(connection(combined, [], true), 'btcusdt@aggTrade', 'BTCUSDT@aggTrade');
    hub.publish('btcusdt@aggTrade', { a: 1 });
    await endOfTask();
    expect(raw).toEqual([['{"a":1}']]);
    expect(combined).toEqual([['{"stream":"BTCUSDT@aggTrade","data":{"a":1}}']]);
  });

  it('another send on a connection writes its gathered frames first, so its frames keep their order', async () => {
    const hub = new StreamHub();
    const writes: string[][] = [];
    const c = connection(writes);
    hub.subscribe(c, 'btcusdt@aggTrade', 'btcusdt@aggTrade');
    hub.publish('btcusdt@aggTrade', { a: 1 });
    c.send('{"result":null,"id":1}');
    expect(writes).toEqual([['{"a":1}'], ['send:{"result":null,"id":1}']]);
    // The flush finds nothing left for this connection.
    await endOfTask();
    expect(writes).toHaveLength(2);
  });

  it('a shutdown flush writes what waits, at once', () => {
    const hub = new StreamHub();
    const writes: string[][] = [];
    hub.subscribe(connection(writes), 'btcusdt@aggTrade', 'btcusdt@aggTrade');
    hub.publish('btcusdt@aggTrade', { a: 1 });
    hub.flush();
    expect(writes).toEqual([['{"a":1}']]);
  });
});

describe('StreamHub user-data connections', () => {
  const place = (offset: bigint): UserStreamPlace => ({ partition: 0, groupStart: offset, offset, sub: 0 });

  it('a listen key of another user moves the connection: nothing of it is left once it closes', () => {
    const hub = new StreamHub();
    for (let i = 0; i < 100; i++) {
      const c = connection([]);
      hub.attachUser(c, `0xa${i}`, `key-a${i}`);
      hub.attachUser(c, `0xb${i}`, `key-b${i}`);
      hub.remove(c);
    }
    expect([...hub.usersConnected()]).toEqual([]);
  });

  it('the first user events no longer reach it, the new user events do', async () => {
    const hub = new StreamHub();
    const writes: string[][] = [];
    const c = connection(writes);
    hub.attachUser(c, '0xa', 'key-a');
    hub.publishUser('0xa', { n: 1 }, place(5n));
    hub.attachUser(c, '0xb', 'key-b');
    hub.publishUser('0xa', { n: 2 }, place(6n));
    // Behind the first user's place, on another user's stream: still sent.
    hub.publishUser('0xb', { n: 3 }, place(2n));
    await endOfTask();
    expect(writes.flat()).toEqual(['send:{"n":1}', 'send:{"n":3}']);
    expect(hub.hasUser('0xa')).toBe(false);
  });
});
