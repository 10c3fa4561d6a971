import ccxt from 'ccxt';
import { FapiAuthError } from '@perp/contracts';
import { verifySignedRequest } from './signed-request';

// A real Binance client signs; the verifier must accept its requests byte for byte.
describe('verifySignedRequest with requests signed by ccxt binanceusdm', () => {
  const secret = 'f'.repeat(32) + '0'.repeat(32);
  const client = new ccxt.binanceusdm({ apiKey: 'e'.repeat(64), secret });

  function signed(path: string, method: string, params: Record<string, string>) {
    const r = client.sign(path, 'fapiPrivate', method, params);
    const url = new URL(r.url);
    return {
      query: url.search.slice(1),
      body: r.body as string | undefined,
      contentType: (r.headers as Record<string, string>)?.['Content-Type'],
    };
  }

  it('accepts a GET with every parameter and the signature in the query', () => {
    const v = verifySignedRequest(signed('openOrders', 'GET', { symbol: 'BTCUSDT' }), secret);
    expect(v.params.get('symbol')).toBe('BTCUSDT');
  });

  it('accepts a POST with every parameter and the signature in a form body', () => {
    const req = signed('order', 'POST', {
      symbol: 'BTCUSDT',
      side: 'BUY',
      type: 'LIMIT',
      quantity: '0.01',
      price: '65000.5',
      timeInForce: 'GTC',
    });
    expect(req.query).toBe('');
    expect(req.body).toContain('signature=');
    const v = verifySignedRequest(req, secret);
    expect(v.params.get('price')).toBe('65000.5');
    expect(v.params.get('recvWindow')).not.toBeNull();
  });

  it('accepts a DELETE and rejects the same request under another secret', () => {
    const req = signed('order', 'DELETE', { symbol: 'BTCUSDT', orderId: '0b9c-41' });
    expect(verifySignedRequest(req, secret).params.get('orderId')).toBe('0b9c-41');
    expect(() => verifySignedRequest(req, '1'.repeat(64))).toThrow(FapiAuthError);
  });
});
