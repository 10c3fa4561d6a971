import { eventually } from '@perp/testing';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { openCountingSocket } from './frame-counter';

describe('the streams benchmark frame counter', () => {
  let server: WebSocketServer;
  let url: string;

  beforeEach(async () => {
    server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((r) => server.once('listening', r));
    url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/stream?streams=a`;
  });

  afterEach(async () => {
    for (const c of server.clients) c.terminate();
    await new Promise((r) => server.close(r));
  });

  it('counts text messages of every length class (not binary ones), answers pings and sees the close', async () => {
    const pongs: string[] = [];
    const sent = ['x', 'y'.repeat(125), 'z'.repeat(126), 'w'.repeat(70_000), '{"e":"aggTrade"}'];
    server.on('connection', (ws) => {
      ws.on('pong', (data) => pongs.push(String(data)));
      for (const m of sent) ws.send(m);
      ws.ping('are you there');
      for (const m of sent) ws.send(m);
      ws.send(Buffer.from([1, 2, 3]), { binary: true }); // not a text message
      ws.close(4008, 'slow client');
    });
    const c = await openCountingSocket(url, '127.0.0.1');
    await eventually(() => c.closed !== undefined);
    expect(c.frames).toBe(2 * sent.length);
    expect(pongs).toEqual(['are you there']);
    expect(c.closed).toBe('4008 slow client');
  });

  it('counts frames that arrive one byte at a time', async () => {
    server.on('connection', (ws) => {
      const raw = (ws as unknown as { _socket: import('node:net').Socket })._socket;
      const frames = Buffer.concat(
        ['a', 'b'.repeat(300)].map((t) => {
          const len = Buffer.byteLength(t);
          const head = len < 126 ? Buffer.from([0x81, len]) : Buffer.from([0x81, 126, len >> 8, len & 0xff]);
          return Buffer.concat([head, Buffer.from(t)]);
        }),
      );
      let i = 0;
      const drip = setInterval(() => {
        if (i < frames.length) raw.write(frames.subarray(i, ++i));
        else clearInterval(drip);
      }, 1);
    });
    const c = await openCountingSocket(url, '127.0.0.1');
    await eventually(() => c.frames === 2);
    expect(c.closed).toBeUndefined();
    c.terminate();
  });

  it('rejects when the server refuses the upgrade', async () => {
    server.options.verifyClient = () => false;
    await expect(openCountingSocket(url, '127.0.0.1')).rejects.toThrow('no upgrade: HTTP 401');
  });
});
