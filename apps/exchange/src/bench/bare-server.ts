/**
 * The benchmark's baseline, run as its own process like the exchange: plain `node:http` reading each
 * request's body and answering a small JSON object shaped like an order acknowledgement. Whatever the
 * exchange does beyond this is the cost of the order path. `GET /sized/<n>` answers n bytes (10 at
 * least) instead.
 */
import { createServer } from 'node:http';

const BODY = JSON.stringify({
  orderId: '00000000-0000-4000-8000-000000000000',
  symbol: 'BTCUSDT',
  status: 'NEW',
  clientOrderId: 'bare',
  price: '65000.0',
  origQty: '0.001',
  side: 'BUY',
  type: 'LIMIT',
  updateTime: 0,
});
const HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'content-length': Buffer.byteLength(BODY),
};

/** `GET /sized/<n>`: a JSON body of n bytes (10 at least), the size of an exchange answer beside it. */
const SIZED = /^\/sized\/(\d{1,7})$/;
const sized = new Map<number, { body: string; headers: Record<string, string | number> }>();

function sizedAnswer(n: number) {
  let a = sized.get(n);
  if (a === undefined) {
    const body = `{"pad":"${'x'.repeat(Math.max(0, n - 10))}"}`;
    sized.set(n, (a = { body, headers: { ...HEADERS, 'content-length': Buffer.byteLength(body) } }));
  }
  return a;
}

const server = createServer((req, res) => {
  const size = req.method === 'GET' ? SIZED.exec(req.url ?? '') : null;
  const answer = size ? sizedAnswer(Number(size[1])) : { body: BODY, headers: HEADERS };
  req.resume();
  req.on('end', () => {
    res.writeHead(200, answer.headers);
    res.end(answer.body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1');
process.once('SIGTERM', () => process.exit(0));
