import { parseStreamRequest } from './stream-requests';

describe('parseStreamRequest (Binance live subscription requests)', () => {
  it.each([
    [
      '{"method":"SUBSCRIBE","params":["btcusdt@aggTrade"],"id":1}',
      { method: 'SUBSCRIBE', params: ['btcusdt@aggTrade'], id: 1 },
    ],
    ['{"method":"UNSUBSCRIBE","params":[],"id":"a-1"}', { method: 'UNSUBSCRIBE', params: [], id: 'a-1' }],
    ['{"method":"LIST_SUBSCRIPTIONS","id":3}', { method: 'LIST_SUBSCRIPTIONS', id: 3 }],
    [
      '{"method":"SET_PROPERTY","params":["combined",true],"id":5}',
      { method: 'SET_PROPERTY', property: 'combined', value: true, id: 5 },
    ],
    [
      '{"method":"GET_PROPERTY","params":["combined"],"id":null}',
      { method: 'GET_PROPERTY', property: 'combined', id: null },
    ],
  ])('%s', (text, request) => expect(parseStreamRequest(text)).toEqual(request));

  it.each([
    ['nope', 3, null],
    ['[1]', 3, null],
    ['{"method":"SUBSCRIBE","params":[],"id":-1}', 2, null],
    ['{"method":"SUBSCRIBE","params":[],"id":1.5}', 2, null],
    ['{"params":[],"id":1}', 2, 1],
    ['{"method":"PING","id":1}', 2, 1],
    ['{"method":"SUBSCRIBE","id":1}', 2, 1],
    ['{"method":"SUBSCRIBE","params":[true],"id":1}', 1, 1],
    ['{"method":"SET_PROPERTY","params":[1,true],"id":1}', 2, 1],
    ['{"method":"SET_PROPERTY","params":["x",true],"id":1}', 0, 1],
    ['{"method":"SET_PROPERTY","params":["combined",1],"id":1}', 1, 1],
  ])('%s: error code %i', (text, code, id) =>
    expect(parseStreamRequest(text)).toEqual({ error: { code, msg: expect.any(String) }, id }),
  );
});
