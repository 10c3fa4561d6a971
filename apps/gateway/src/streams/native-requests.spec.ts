import { parseNativeRequest } from './native-requests';

describe('native WebSocket requests', () => {
  it('parses subscribe, unsubscribe, auth, list and ping with an optional id', () => {
    expect(parseNativeRequest('{"op":"subscribe","channels":["ticker:btc-usd"],"id":1}')).toEqual({
      op: 'subscribe',
      channels: ['ticker:btc-usd'],
      id: 1,
    });
    expect(parseNativeRequest('{"op":"unsubscribe","channels":["orders"]}')).toEqual({
      op: 'unsubscribe',
      channels: ['orders'],
    });
    expect(parseNativeRequest('{"op":"auth","token":"t","id":"a-1"}')).toEqual({
      op: 'auth',
      token: 't',
      id: 'a-1',
    });
    expect(parseNativeRequest('{"op":"list"}')).toEqual({ op: 'list' });
    expect(parseNativeRequest('{"op":"ping","id":7}')).toEqual({ op: 'ping', id: 7 });
  });

  it.each([
    ['not json', { code: 'INVALID_REQUEST', error: 'Invalid JSON.' }],
    ['[1]', { code: 'INVALID_REQUEST', error: 'A request is a JSON object with an op.' }],
    ['{"op":"nuke","id":3}', { code: 'INVALID_REQUEST', id: 3 }],
    ['{"op":"subscribe","id":-1}', { code: 'INVALID_REQUEST' }],
    ['{"op":"subscribe","id":2}', { code: 'INVALID_REQUEST', id: 2 }],
    ['{"op":"subscribe","channels":[]}', { code: 'INVALID_REQUEST' }],
    ['{"op":"subscribe","channels":[1]}', { code: 'INVALID_REQUEST' }],
    ['{"op":"auth"}', { code: 'INVALID_TOKEN', error: 'Missing bearer token.' }],
  ])('%s is answered with an error frame', (text, error) => {
    expect(parseNativeRequest(text)).toMatchObject({ type: 'error', ...error });
  });

  it('refuses more than 100 channels in one request', () => {
    const channels = Array.from({ length: 101 }, (_, i) => `kline:BTCUSDT:${i}m`);
    expect(parseNativeRequest(JSON.stringify({ op: 'subscribe', channels }))).toMatchObject({
      code: 'LIMIT_REACHED',
    });
  });
});
