import { createHmac } from 'node:crypto';
import { FapiAuthError, FapiError } from '@perp/contracts';
import {
  rawQueryOf,
  signedPayload,
  signPayload,
  verifySignedRequest,
  type SignedRequestInput,
} from './signed-request';

const SECRET = 'a'.repeat(32) + 'b'.repeat(32);
const NOW = 1_700_000_000_000;
const FORM = 'application/x-www-form-urlencoded';

/** Runs the verifier and returns what it threw, so each case can assert code, status and class. */
function failure(input: SignedRequestInput, secret = SECRET, now = NOW): unknown {
  try {
    verifySignedRequest(input, secret, now);
  } catch (e) {
    return e;
  }
  throw new Error('expected the request to be rejected');
}

function expectSignatureInvalid(input: SignedRequestInput, secret = SECRET, now = NOW): void {
  const e = failure(input, secret, now);
  expect(e).toBeInstanceOf(FapiAuthError);
  expect((e as FapiAuthError).code).toBe('SIGNATURE_INVALID');
  expect((e as FapiAuthError).status).toBe(401);
}

function expectOutsideWindow(input: SignedRequestInput, now = NOW): void {
  const e = failure(input, SECRET, now);
  expect(e).toBeInstanceOf(FapiError);
  expect((e as FapiError).code).toBe(-1021);
  expect((e as FapiError).status).toBe(400);
}

/** Signs a query the way Binance clients do: signature appended last. */
function signedQuery(query: string, body = ''): string {
  return `${query}&signature=${signPayload(SECRET, query + body)}`;
}

describe('verifySignedRequest', () => {
  it('accepts a GET whose signature is the last query parameter and returns the decoded parameters', () => {
    const query = signedQuery(`symbol=BTCUSDT&orderId=a%2Db&timestamp=${NOW}`);
    const v = verifySignedRequest({ query }, SECRET, NOW);
    expect(v.timestamp).toBe(NOW);
    expect(v.params.get('symbol')).toBe('BTCUSDT');
    expect(v.params.get('orderId')).toBe('a-b');
    expect(v.params.has('signature')).toBe(false);
  });

  it('appends a JSON body verbatim after the query, whitespace and key order included', () => {
    const body = '{ "symbol":"BTCUSDT",  "side":"BUY","quantity":"0.010" }';
    const query = signedQuery(`timestamp=${NOW}`, body);
    expect(verifySignedRequest({ query, body, contentType: 'application/json' }, SECRET, NOW).timestamp).toBe(
      NOW,
    );
    // The same object re-serialised is different bytes: rejected.
    const reserialised = JSON.stringify(JSON.parse(body));
    expectSignatureInvalid({ query, body: reserialised, contentType: 'application/json' });
    // Body sent but only the query signed ("body not appended").
    expectSignatureInvalid({ query: signedQuery(`timestamp=${NOW}`), body, contentType: 'application/json' });
  });

  it('hashes body bytes given as a Buffer exactly like the same string', () => {
    const body = '{"note":"é"}';
    const query = signedQuery(`timestamp=${NOW}`, body);
    expect(() =>
      verifySignedRequest({ query, body: Buffer.from(body), contentType: 'application/json' }, SECRET, NOW),
    ).not.toThrow();
  });

  it('rejects a body URL-encoded where JSON was signed, and the reverse', () => {
    const json = '{"symbol":"BTCUSDT","side":"BUY"}';
    const query = signedQuery(`timestamp=${NOW}`, json);
    expectSignatureInvalid({ query, body: encodeURIComponent(json), contentType: FORM });
    const form = 'symbol=BTCUSDT&side=BUY';
    const query2 = signedQuery(`timestamp=${NOW}`, encodeURIComponent(form));
    expectSignatureInvalid({ query: query2, body: form, contentType: FORM });
  });

  it('takes timestamp and signature from a form body (ccxt puts every parameter there)', () => {
    const unsigned = `symbol=BTCUSDT&side=BUY&type=LIMIT&price=100.5&timestamp=${NOW}`;
    const body = `${unsigned}&signature=${signPayload(SECRET, unsigned)}`;
    const v = verifySignedRequest({ query: '', body, contentType: `${FORM}; charset=utf-8` }, SECRET, NOW);
    expect(v.timestamp).toBe(NOW);
    expect(v.params.get('price')).toBe('100.5');
    expect(v.params.has('signature')).toBe(false);
  });

  it('accepts the signature in the query with the other parameters in a form body', () => {
    const body = 'symbol=BTCUSDT&side=SELL';
    const query = signedQuery(`timestamp=${NOW}`, body);
    const v = verifySignedRequest({ query, body, contentType: FORM }, SECRET, NOW);
    expect(v.params.get('side')).toBe('SELL');
  });

  it('removes a signature placed mid-query without touching the other bytes', () => {
    const rest = `symbol=BTCUSDT&list=a%2Cb&timestamp=${NOW}&&x=+1`;
    const sig = signPayload(SECRET, rest);
    const query = `symbol=BTCUSDT&list=a%2Cb&signature=${sig}&timestamp=${NOW}&&x=+1`;
    expect(signedPayload({ query }).payload.toString()).toBe(rest);
    expect(verifySignedRequest({ query }, SECRET, NOW).params.get('x')).toBe(' 1');
    // Same parameters, different encoding: different bytes, so rejected.
    expectSignatureInvalid({ query: query.replace('a%2Cb', 'a,b') });
  });

  it('reads plain text (nothing to decode) exactly as the byte-by-byte reading does', () => {
    // The definition, segment by segment: what URLSearchParams makes of each, signatures dropped.
    const oracle = (query: string, body?: string) => {
      const kept: string[] = [];
      const params: [string, string][] = [];
      const signatures: string[] = [];
      const read = (text: string) => {
        const out: string[] = [];
        for (const segment of text === '' ? [] : text.split('&')) {
          const [pair] = [...new URLSearchParams(segment)];
          if (pair?.[0] === 'signature') signatures.push(pair[1]);
          else {
            out.push(segment);
            if (pair) params.push(pair);
          }
        }
        return out.join('&');
      };
      kept.push(read(query));
      if (body !== undefined) kept.push(read(body));
      return { payload: kept.join(''), params: [...params], signatures };
    };
    const cases: [string, string | undefined][] = [
      ['', undefined],
      [`timestamp=${NOW}&signature=ab`, undefined],
      [`a=1&&b=2&`, undefined],
      [`&a&b==c&=d&signature&signature=x=y`, undefined],
      [`timestamp=${NOW}`, `symbol=BTCUSDT&side=BUY&signature=cd`],
      ['', `&&x=1&signature=ef&`],
      [`signature=1`, `signature=2`],
    ];
    for (const [query, body] of cases)
      for (const asBuffer of [false, true]) {
        const input = {
          query,
          body: body === undefined ? undefined : asBuffer ? Buffer.from(body) : body,
          contentType: FORM,
        };
        const got = signedPayload(input);
        expect({
          payload: got.payload.toString('latin1'),
          params: [...got.params],
          signatures: got.signatures,
        }).toEqual(oracle(query, body));
      }
  });

  it('verifies non-ASCII bytes in a form body as the client sent them', () => {
    const bytes = Buffer.concat([Buffer.from(`timestamp=${NOW}&note=`), Buffer.from('é', 'utf8')]);
    const signature = createHmac('sha256', SECRET).update(bytes).digest('hex');
    const body = Buffer.concat([bytes, Buffer.from(`&signature=${signature}`)]);
    const v = verifySignedRequest({ query: '', body, contentType: FORM }, SECRET, NOW);
    expect(v.params.get('note')).toBe('é');
    expectSignatureInvalid({
      query: '',
      body: Buffer.from(body.toString('latin1'), 'utf8'),
      contentType: FORM,
    });
  });

  it('keeps the key order the client signed', () => {
    const query = signedQuery(`timestamp=${NOW}&symbol=BTCUSDT`);
    expect(() => verifySignedRequest({ query }, SECRET, NOW)).not.toThrow();
    const swapped = query.replace(`timestamp=${NOW}&symbol=BTCUSDT`, `symbol=BTCUSDT&timestamp=${NOW}`);
    expectSignatureInvalid({ query: swapped });
  });

  it('accepts upper- and mixed-case hex signatures (Binance: not case sensitive)', () => {
    const unsigned = `timestamp=${NOW}`;
    const sig = signPayload(SECRET, unsigned);
    expect(() =>
      verifySignedRequest({ query: `${unsigned}&signature=${sig.toUpperCase()}` }, SECRET, NOW),
    ).not.toThrow();
    const mixed = [...sig].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('');
    expect(() => verifySignedRequest({ query: `${unsigned}&signature=${mixed}` }, SECRET, NOW)).not.toThrow();
  });

  it('rejects a missing, short, long or non-hex signature', () => {
    const unsigned = `timestamp=${NOW}`;
    const sig = signPayload(SECRET, unsigned);
    expectSignatureInvalid({ query: unsigned });
    expectSignatureInvalid({ query: `${unsigned}&signature=` });
    expectSignatureInvalid({ query: `${unsigned}&signature` });
    expectSignatureInvalid({ query: `${unsigned}&signature=${sig.slice(0, 62)}` });
    expectSignatureInvalid({ query: `${unsigned}&signature=${sig}00` });
    // Buffer.from(hex) would stop at the first bad digit; the format check must catch it first.
    expectSignatureInvalid({ query: `${unsigned}&signature=${sig.slice(0, 62)}zz` });
  });

  it('rejects duplicated signature parameters, even when both are valid', () => {
    const unsigned = `timestamp=${NOW}`;
    const sig = signPayload(SECRET, unsigned);
    expectSignatureInvalid({ query: `${unsigned}&signature=${sig}&signature=${sig}` });
    const body = 'side=BUY';
    const sig2 = signPayload(SECRET, unsigned + body);
    expectSignatureInvalid({
      query: `${unsigned}&signature=${sig2}`,
      body: `${body}&signature=${sig2}`,
      contentType: FORM,
    });
  });

  it('rejects a signature made with another secret', () => {
    expectSignatureInvalid({ query: signedQuery(`timestamp=${NOW}`) }, 'c'.repeat(64));
  });

  it('rejects a missing, malformed or repeated timestamp as SIGNATURE_INVALID', () => {
    expectSignatureInvalid({ query: signedQuery('symbol=BTCUSDT') });
    for (const t of ['', 'abc', '-1', '1.7e12', `${NOW}.0`, ' 1', '1'.repeat(16)])
      expectSignatureInvalid({ query: signedQuery(`timestamp=${encodeURIComponent(t)}`) });
    expectSignatureInvalid({ query: signedQuery(`timestamp=${NOW}&timestamp=${NOW}`) });
    // A timestamp in a JSON body does not count: the spec puts it in the query.
    const body = JSON.stringify({ timestamp: NOW });
    expectSignatureInvalid({ query: signedQuery('', body), body, contentType: 'application/json' });
  });

  it('accepts |now - timestamp| of exactly 60000 ms in both directions', () => {
    for (const skew of [-60_000, -1, 0, 1, 60_000]) {
      const query = signedQuery(`timestamp=${NOW + skew}`);
      expect(verifySignedRequest({ query }, SECRET, NOW).timestamp).toBe(NOW + skew);
    }
  });

  it('rejects 60001 ms in the past or in the future with -1021 in the business envelope', () => {
    expectOutsideWindow({ query: signedQuery(`timestamp=${NOW - 60_001}`) });
    expectOutsideWindow({ query: signedQuery(`timestamp=${NOW + 60_001}`) });
    expectOutsideWindow({ query: signedQuery(`timestamp=0`) });
  });

  it('ignores recvWindow: it neither widens nor narrows the fixed window', () => {
    expectOutsideWindow({ query: signedQuery(`recvWindow=600000&timestamp=${NOW - 60_001}`) });
    const narrow = signedQuery(`recvWindow=1000&timestamp=${NOW - 30_000}`);
    expect(verifySignedRequest({ query: narrow }, SECRET, NOW).params.get('recvWindow')).toBe('1000');
  });

  it('checks the HMAC before the window: a stale request with a bad signature is SIGNATURE_INVALID', () => {
    expectSignatureInvalid({ query: signedQuery(`timestamp=${NOW - 600_000}`) }, 'c'.repeat(64));
  });

  it('takes the raw query from a request URL', () => {
    expect(rawQueryOf('/fapi/v1/order?symbol=BTCUSDT&a=%2C')).toBe('symbol=BTCUSDT&a=%2C');
    expect(rawQueryOf('/fapi/v1/order')).toBe('');
    expect(rawQueryOf('/fapi/v1/order?')).toBe('');
  });
});
