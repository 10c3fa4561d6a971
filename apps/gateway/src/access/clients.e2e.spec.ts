import { DerivativesTradingUsdsFutures } from '@binance/derivatives-trading-usds-futures';
import { USDMClient } from 'binance';
import ccxt from 'ccxt';
import { createTestSchema, type TestSchema } from '@perp/persistence';
import { Wallet } from 'ethers';
import { type AccessApp, createKey, json, login, startAccessApp } from './access.harness';

// Binance clients, unchanged but for the base URL, sign requests our guard accepts.
describe('signed FAPI endpoints from real Binance clients', () => {
  let schema: TestSchema;
  let a: AccessApp;
  let key: { id: string; api_key: string; secret_key: string };
  let token: string;

  beforeAll(async () => {
    schema = await createTestSchema();
    a = await startAccessApp({ schema: schema.schema });
    token = await login(a.url, Wallet.createRandom());
    key = await createKey(a.url, token, { label: 'clients' });
  });

  afterAll(async () => {
    await a?.close();
    await schema?.drop();
  });

  function ccxtClient(secret = key.secret_key) {
    const client = new ccxt.binanceusdm({ apiKey: key.api_key, secret });
    const api = client.urls['api'] as Record<string, string>;
    for (const name of Object.keys(api))
      if (name.startsWith('fapi')) api[name] = api[name]!.replace('https://fapi.binance.com', a.url);
    return client;
  }

  it('ccxt binanceusdm: GET and POST positionSide/dual, POST marginType (form bodies)', async () => {
    const client = ccxtClient();
    expect(await client.fapiPrivateGetPositionSideDual()).toEqual({ dualSidePosition: false });
    expect(await client.fapiPrivatePostPositionSideDual({ dualSidePosition: 'false' })).toEqual({
      code: 200,
      msg: 'success',
    });
    expect(await client.fapiPrivatePostMarginType({ symbol: 'BTCUSDT', marginType: 'CROSSED' })).toEqual({
      code: 200,
      msg: 'success',
    });
    await expect(client.fapiPrivatePostPositionSideDual({ dualSidePosition: 'true' })).rejects.toThrow(
      /-4059/,
    );
    await expect(
      client.fapiPrivatePostMarginType({ symbol: 'BTCUSDT', marginType: 'ISOLATED' }),
    ).rejects.toThrow(/-4046/);
  });

  it('ccxt surfaces our refusals: the auth envelope as an ExchangeError naming the code, -1021 as InvalidNonce', async () => {
    // ccxt reads `success: false` bodies as a generic ExchangeError (the spec's envelope, not Binance's).
    const wrong = ccxtClient('0'.repeat(64)).fapiPrivateGetPositionSideDual();
    await expect(wrong).rejects.toBeInstanceOf(ccxt.ExchangeError);
    await expect(wrong).rejects.toThrow(/SIGNATURE_INVALID/);
    const skewed = ccxtClient();
    skewed.options['timeDifference'] = 120_000;
    await expect(skewed.fapiPrivateGetPositionSideDual()).rejects.toBeInstanceOf(ccxt.InvalidNonce);
  });

  it('the binance package USDMClient (every parameter in the query, empty POST body)', async () => {
    const client = new USDMClient({ api_key: key.api_key, api_secret: key.secret_key, baseUrl: a.url });
    expect(await client.getCurrentPositionMode()).toEqual({ dualSidePosition: false });
    expect(await client.setPositionMode({ dualSidePosition: 'false' })).toEqual({
      code: 200,
      msg: 'success',
    });
    expect(await client.setMarginType({ symbol: 'BTCUSDT', marginType: 'CROSSED' })).toEqual({
      code: 200,
      msg: 'success',
    });
    await expect(client.setPositionMode({ dualSidePosition: 'true' })).rejects.toMatchObject({ code: -4059 });
  });

  it("Binance's official connector (@binance/derivatives-trading-usds-futures)", async () => {
    const client = new DerivativesTradingUsdsFutures({
      configurationRestAPI: { apiKey: key.api_key, apiSecret: key.secret_key, basePath: a.url },
    });
    const mode = await client.restAPI.getCurrentPositionMode();
    expect(await mode.data()).toEqual({ dualSidePosition: false });
    const set = await client.restAPI.changePositionMode({ dualSidePosition: 'false' });
    expect(await set.data()).toEqual({ code: 200, msg: 'success' });
    const margin = await client.restAPI.changeMarginType({
      symbol: 'BTCUSDT',
      marginType: 'CROSSED' as never,
    });
    expect(await margin.data()).toEqual({ code: 200, msg: 'success' });
  });

  it('every client request counted as a use of the key', async () => {
    const list = (await json(`${a.url}/api/v1/api-keys`, 'GET', undefined, token)).body;
    expect(list[0].last_used_at).toEqual(expect.any(String));
  });
});
