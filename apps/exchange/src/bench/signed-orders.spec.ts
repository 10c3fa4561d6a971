import { SIGNATURE_INVALID_MESSAGE, TIMESTAMP_OUTSIDE_WINDOW_MESSAGE, verifySignedRequest } from '@perp/auth';
import type autocannon from 'autocannon';
import { orderFlowRequests, pacedOrderSource } from './load';
import {
  type ApiKey,
  type OrderMix,
  OrderFlow,
  ResponseTally,
  signedRequest,
  type WireRequest,
} from './signed-orders';

const A: ApiKey = { apiKey: 'key-a', secretKey: 'secret-a-0123456789' };
const B: ApiKey = { apiKey: 'key-b', secretKey: 'secret-b-0123456789' };
const MIX: OrderMix = { symbol: 'BTCUSDT', price: '65000', restingPrice: '60000', quantity: '0.001' };
const NOW = 1_700_000_000_000;

/** Verifies a built request with the gateway's own verifier and returns its parameters. */
function verify(req: WireRequest, key: ApiKey, now = NOW): Record<string, string> {
  const q = req.path.indexOf('?');
  const verified = verifySignedRequest(
    {
      query: q < 0 ? '' : req.path.slice(q + 1),
      body: req.body,
      contentType: req.headers['content-type'],
    },
    key.secretKey,
    now,
  );
  return Object.fromEntries(verified.params);
}

describe('signedRequest', () => {
  it('signs a POST as a form body the gateway verifies, with the key in X-MBX-APIKEY', () => {
    const req = signedRequest(A, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDT', side: 'BUY' }, NOW);
    expect(req).toMatchObject({
      method: 'POST',
      path: '/fapi/v1/order',
      headers: { 'x-mbx-apikey': 'key-a', 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(verify(req, A)).toEqual({ symbol: 'BTCUSDT', side: 'BUY', timestamp: String(NOW) });
  });

  it('signs a DELETE in the query string', () => {
    const req = signedRequest(
      A,
      'DELETE',
      '/fapi/v1/order',
      { symbol: 'BTCUSDT', origClientOrderId: 'x-1' },
      NOW,
    );
    expect(req.body).toBeUndefined();
    expect(req.path.startsWith('/fapi/v1/order?symbol=BTCUSDT&origClientOrderId=x-1&timestamp=')).toBe(true);
    expect(verify(req, A)).toMatchObject({ origClientOrderId: 'x-1' });
  });

  it('is refused with another secret, and outside the time window', () => {
    const req = signedRequest(A, 'POST', '/fapi/v1/order', { symbol: 'BTCUSDT' }, NOW);
    expect(() => verify(req, B)).toThrow(SIGNATURE_INVALID_MESSAGE);
    expect(() => verify(req, A, NOW + 61_000)).toThrow(TIMESTAMP_OUTSIDE_WINDOW_MESSAGE);
  });
});

describe('OrderFlow', () => {
  const flow = () => new OrderFlow(MIX, A, B, 'e32');

  it('crosses A buying and B selling at one price, each signed by its own key', () => {
    const f = flow();
    const orders = [0, 1, 2, 3].map((step) => {
      const req = f.crossing(step, NOW);
      const key = req.headers['x-mbx-apikey'] === A.apiKey ? A : B;
      const p = verify(req, key);
      return [key.apiKey, p.side, p.price, p.quantity, p.type, p.timeInForce];
    });
    expect(orders).toEqual([
      ['key-a', 'BUY', '65000', '0.001', 'LIMIT', 'GTC'],
      ['key-b', 'SELL', '65000', '0.001', 'LIMIT', 'GTC'],
      ['key-a', 'BUY', '65000', '0.001', 'LIMIT', 'GTC'],
      ['key-b', 'SELL', '65000', '0.001', 'LIMIT', 'GTC'],
    ]);
  });

  it('rests A orders below the market under unique client ids and cancels them by that id', () => {
    const f = flow();
    const first = f.resting(NOW);
    const second = f.resting(NOW);
    expect(first.clientOrderId).not.toEqual(second.clientOrderId);
    expect(first.clientOrderId).toMatch(/^e32-[0-9]+$/);
    expect(verify(first.request, A)).toMatchObject({
      side: 'BUY',
      price: '60000',
      newClientOrderId: first.clientOrderId,
    });
    const cancel = f.cancel(first.clientOrderId, NOW);
    expect(cancel.method).toBe('DELETE');
    expect(verify(cancel, A)).toMatchObject({ symbol: 'BTCUSDT', origClientOrderId: first.clientOrderId });
  });
});

describe('orderFlowRequests', () => {
  it("starts each connection's crossing orders at its own step, the resting order and its cancel last", () => {
    const f = new OrderFlow(MIX, A, B, 'c');
    const sequence = (rotation: number) => {
      const ctx = {};
      return orderFlowRequests(f, undefined, rotation).map((step) => {
        const setup = step.setupRequest as (r: autocannon.Request, c: object) => autocannon.Request;
        const req = setup({}, ctx) as WireRequest;
        const key = req.headers['x-mbx-apikey'] === A.apiKey ? A : B;
        const p = verify(req, key, Date.now());
        return `${req.method} ${key === A ? 'A' : 'B'} ${p.side ?? ''} ${p.newClientOrderId ?? p.origClientOrderId ?? ''}`;
      });
    };
    expect(sequence(0)).toEqual([
      'POST A BUY ',
      'POST B SELL ',
      'POST A BUY ',
      'POST B SELL ',
      'POST A BUY c-0',
      'DELETE A  c-0',
    ]);
    expect(sequence(5)).toEqual([
      'POST B SELL ',
      'POST A BUY ',
      'POST B SELL ',
      'POST A BUY ',
      'POST A BUY c-1',
      'DELETE A  c-1',
    ]);
  });
});

describe('pacedOrderSource', () => {
  it('cancels only resting orders already acknowledged, placing another when there is none', () => {
    const source = pacedOrderSource(new OrderFlow(MIX, A, B, 'p'));
    const params = (r: { request: WireRequest }) =>
      verify(r.request, r.request.headers['x-mbx-apikey'] === A.apiKey ? A : B, Date.now());
    const cycle = () => Array.from({ length: 6 }, () => source.next());

    const one = cycle();
    expect(one.map((r) => r.request.method)).toEqual(['POST', 'POST', 'POST', 'POST', 'POST', 'POST']);
    // Step 4's order was not acknowledged yet: step 5 rests a second one. Acknowledge the first only.
    one[4].done?.(200, '{}');
    one[5].done?.(400, '{"code":-1}');

    const two = cycle();
    expect(two[5].request.method).toBe('DELETE');
    expect(params(two[5]).origClientOrderId).toBe(params(one[4]).newClientOrderId);
  });
});

describe('ResponseTally', () => {
  it('counts order statuses, answers that are not orders, and keeps refusals', () => {
    const t = new ResponseTally();
    t.record(200, '{"orderId":"1","status":"NEW"}');
    t.record(200, '{"orderId":"2","status":"FILLED"}');
    t.record(200, '{"orderId":"3","status":"NEW"}');
    t.record(200, '{"ok":true}');
    t.record(400, '{"code":-2019,"msg":"Margin is insufficient."}');
    expect(t.statuses).toEqual({ NEW: 2, FILLED: 1 });
    expect(t.notOrders).toBe(1);
    expect(t.refusals).toEqual(['400 {"code":-2019,"msg":"Margin is insufficient."}']);
  });
});
