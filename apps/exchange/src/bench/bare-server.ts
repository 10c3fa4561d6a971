/**
 * The benchmark's baseline, run as its own process like the exchange: plain `node:http` reading each
 * request's body and answering a small JSON object shaped like an order acknowledgement. Whatever the
 * exchange does beyond this is the cost of the order path.
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

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, HEADERS);
    res.end(BODY);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1');
process.once('SIGTERM', () => process.exit(0));
