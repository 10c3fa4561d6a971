import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpFastLanes, rawHeader } from './fast-lanes';

describe('HttpFastLanes', () => {
  let server: Server;
  let url: string;
  const lanes = new HttpFastLanes();

  beforeAll(async () => {
    server = createServer((_req, res) => res.end('framework'));
    lanes.install(server);
    lanes.add('/fast', (_req, res, query) => {
      if (query === 'decline=1') return false;
      res.end(`lane ${query}`);
      return true;
    });
    // A lane of another method reads the body itself when it takes the request.
    lanes.add(
      '/fast',
      (req, res) => {
        if (req.headers['content-type'] !== 'text/plain') return false;
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => res.end(`post lane ${Buffer.concat(chunks).toString()}`));
        return true;
      },
      'POST',
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise((r) => server.close(r)));

  const text = async (path: string, init?: RequestInit) => (await fetch(url + path, init)).text();

  it('answers a bodyless GET of its path with the query; everything else reaches the framework', async () => {
    expect(await text('/fast?a=1')).toBe('lane a=1');
    expect(await text('/fast')).toBe('lane ');
    expect(lanes.taken).toBe(2);
    expect(await text('/fast?decline=1')).toBe('framework');
    expect(await text('/fast/')).toBe('framework');
    expect(await text('/other')).toBe('framework');
    expect(await text('/fast', { method: 'POST', body: 'x' })).toBe('framework');
    expect(await text('/fast', { method: 'PUT', body: 'x', headers: { 'content-type': 'text/plain' } })).toBe(
      'framework',
    );
    expect(lanes.taken).toBe(2);
    expect(() => lanes.add('/fast', () => false)).toThrow('exists already');
    expect(() => lanes.add('/fast', () => false, 'POST')).toThrow('POST /fast exists already');
  });

  it("a method's own lane takes its requests, body and all, or declines to the framework", async () => {
    const before = lanes.taken;
    const post = (body: string, type: string) =>
      text('/fast?x=1', { method: 'POST', body, headers: { 'content-type': type } });
    expect(await post('hello', 'text/plain')).toBe('post lane hello');
    expect(await post('hello', 'application/json')).toBe('framework');
    expect(lanes.taken).toBe(before + 1);
  });

  it('after clear() every request reaches the framework', async () => {
    lanes.clear();
    expect(await text('/fast?a=1')).toBe('framework');
  });
});

describe('rawHeader', () => {
  it('reads a header as req.headers would, by its lower-case name, repeated ones joined', () => {
    const req = {
      rawHeaders: [
        'Host',
        'x',
        'X-Forwarded-For',
        '1.1.1.1',
        'x-forwarded-for',
        '2.2.2.2',
        'Content-Length',
        '0',
      ],
    };
    expect(rawHeader(req, 'x-forwarded-for')).toBe('1.1.1.1, 2.2.2.2');
    expect(rawHeader(req, 'content-length')).toBe('0');
    expect(rawHeader(req, 'transfer-encoding')).toBeUndefined();
  });
});
