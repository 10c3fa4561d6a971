import { Bus } from '@perp/bus';
import { type AccountEvent, type EngineEvent, outputId, TOPICS } from '@perp/contracts';
import { MarketRegistry, Money } from '@perp/domain';
import {
  authError,
  createKey,
  http,
  type HttpResponse,
  json,
  type KeyPair,
  login,
  nativeError,
  parsePrometheusText,
  signed,
  sumOf,
} from '@perp/testing';
import { Wallet } from 'ethers';
import { type InProcessExchange, startInProcessExchange } from '../testing/in-process-exchange';
import { adminRequest, deposit, eventually } from './trading.harness';

const BTC = 'BTCUSDT';
const MIN = 60_000;
// A funding time a few minutes ahead (BTCUSDT funds every minute here); the pushes carry their times.
const T = Math.floor(Date.now() / MIN) * MIN + 10 * MIN;

interface User {
  address: string;
  key: KeyPair;
  token: string;
}

let ids = 0;
/** An account event as a risk partition publishes it (id: the risk input's place). */
const accountEvent = (body: object, partition = 0, offset = 1_000_000 + ++ids, index = 0): AccountEvent =>
  ({
    ...body,
    id: outputId(TOPICS.riskCommands.name, partition, String(offset), index),
    v: 1,
    time: Date.now(),
  }) as AccountEvent;

const forceOrder = (
  user: string,
  autoCloseType: 'LIQUIDATION' | 'ADL',
  orderId: string,
  time: number,
  symbol = BTC,
) => ({
  type: 'forceOrder',
  user,
  forceOrder: {
    orderId,
    symbol,
    autoCloseType,
    side: autoCloseType === 'ADL' ? 'SELL' : 'BUY',
    price: '51000.5',
    avgPrice: autoCloseType === 'ADL' ? '51000.5' : '50990',
    origQty: '0.020',
    executedQty: '0.020',
    fee: autoCloseType === 'ADL' ? '0' : '12.7475',
    time,
    updateTime: time + 3,
  },
});

/**
 * The read side of liquidation and ADL over HTTP on the embedded exchange: force orders, ADL
 * quantiles, the native ADL endpoints, the insurance fund and solvency. Liquidations themselves
 * are produced elsewhere; here their contract events are published on the bus, as risk and the
 * engine publish them, and the projections and endpoints are checked.
 */
describe('liquidation and ADL reads (embedded exchange over HTTP)', () => {
  let ex: InProcessExchange;
  let bus: Bus;
  let a: User;
  let b: User;
  let c: User;
  let d: User;

  const user = async (): Promise<User> => {
    const wallet = Wallet.createRandom();
    const token = await login(ex.url, wallet);
    return { address: wallet.address.toLowerCase(), token, key: await createKey(ex.url, token) };
  };
  const get = (u: User, path: string, params: Record<string, string> = {}) =>
    signed(ex.url, path, u.key, { method: 'GET', params });
  const order = async (u: User, params: Record<string, string>) => {
    const r = await signed(ex.url, '/fapi/v1/order', u.key, { method: 'POST', params });
    expect(r.status).toBe(200);
    return r.body as { status: string };
  };
  const index = async (indexPrice: string, time: number) => {
    const r = await adminRequest(ex.url, ex.adminToken, `/prices/${BTC}`, 'POST', { indexPrice, time });
    expect(r.status).toBe(200);
  };
  /** An operator GET; `null` sends no token. */
  const admin = (path: string, token: string | null = ex.adminToken) =>
    json(`${ex.url}/admin/v1${path}`, 'GET', undefined, token ?? undefined);
  const native = (path: string, token?: string) => json(`${ex.url}/api/v1${path}`, 'GET', undefined, token);
  const weight = (r: HttpResponse) => Number(r.headers['x-mbx-used-weight-1m']);
  const fapiError = (code: number, msg: string) => ({ code, msg });

  beforeAll(async () => {
    ex = await startInProcessExchange(
      {},
      {
        markets: (m) => {
          if (m.symbol === BTC) m.fundingIntervalMinutes = 1;
        },
      },
    );
    bus = ex.app.get(Bus);
    [a, b, c, d] = [await user(), await user(), await user(), await user()];
    for (const u of [a, b, c]) await deposit(ex.url, ex.adminToken, u.address, '10000');
  }, 60_000);
  afterAll(() => ex?.close());

  describe('solvency', () => {
    it('is exactly 0 after deposits, trades at two prices and a funding round; figures by hand', async () => {
      await index('50000', T - 59_000);
      // A sells 0.1 to B at 50500; B sells 0.05 on to C at 50600 (B realizes 0.05 x 100 = 5).
      await order(a, {
        symbol: BTC,
        side: 'SELL',
        type: 'LIMIT',
        price: '50500',
        quantity: '0.1',
        timeInForce: 'GTC',
      });
      expect((await order(b, { symbol: BTC, side: 'BUY', type: 'MARKET', quantity: '0.1' })).status).toBe(
        'FILLED',
      );
      await order(b, {
        symbol: BTC,
        side: 'SELL',
        type: 'LIMIT',
        price: '50600',
        quantity: '0.05',
        timeInForce: 'GTC',
      });
      expect((await order(c, { symbol: BTC, side: 'BUY', type: 'MARKET', quantity: '0.05' })).status).toBe(
        'FILLED',
      );
      // A tick past T settles the funding round.
      await index('50000', T + 1_000);
      const funding = async (u: User) =>
        (
          await eventually(
            () =>
              get(u, '/fapi/v1/income', { incomeType: 'FUNDING_FEE' }).then(
                (r) => r.body as { income: string }[],
              ),
            (rows) => rows.length > 0,
          )
        ).map((r) => r.income);
      const paid = [...(await funding(a)), ...(await funding(b)), ...(await funding(c))];
      expect(paid).toHaveLength(3);

      // Funding clears through the insurance fund: it keeps minus the payments' sum (the dust).
      const insurance = paid.reduce((sum, x) => sum.minus(x), new Money(0));
      const r = await eventually(
        () => admin('/solvency'),
        (x) => x.body?.unsettled_symbols?.length === 0 && x.body?.insurance_fund === insurance.toFixed(),
      );
      // Fees: 5050 x (0.0002 + 0.0005) + 2530 x (0.0002 + 0.0005) = 3.535 + 1.771. Open positions
      // (A -0.1 at 50500, B +0.05 at 50500, C +0.05 at 50600) are worth -5 at any mark: B's 5.
      // Wallets: deposits - fees - insurance + the 5 B took out of clearing.
      expect([r.status, r.body]).toEqual([
        200,
        {
          asset: 'USDT',
          deposits: '30000',
          wallets: new Money('30000').minus('5.306').minus(insurance).plus(5).toFixed(),
          open_position_pnl: '-5',
          fees: '5.306',
          insurance_fund: insurance.toFixed(),
          difference: '0',
          partitions: expect.any(Number),
          unsettled_symbols: [],
          time: expect.any(Number),
        },
      ]);
    }, 60_000);

    it('the difference and the fund are Prometheus series', async () => {
      const samples = parsePrometheusText(await (await fetch(`${ex.url}/metrics`)).text());
      expect(sumOf(samples, 'perp_risk_solvency_difference_usdt')).toBe(0);
      const fund = (await admin('/solvency')).body.insurance_fund as string;
      expect(sumOf(samples, 'perp_risk_insurance_fund_usdt')).toBeCloseTo(Number(fund), 8);
    });

    it('operators only: no token, another token, a user JWT are 401 INVALID_TOKEN', async () => {
      for (const token of [null, 'not-the-token', a.token]) {
        const r = await admin('/solvency', token);
        expect([r.status, r.body]).toEqual([401, nativeError('INVALID_TOKEN')]);
      }
    });
  });

  describe('GET /fapi/v1/forceOrders', () => {
    const t0 = Date.now() - 60_000;
    beforeAll(async () => {
      const events = [
        accountEvent(forceOrder(a.address, 'LIQUIDATION', 'liq-1', t0)),
        accountEvent(forceOrder(a.address, 'ADL', 'adl-1', t0 + 1_000)),
        accountEvent(forceOrder(a.address, 'LIQUIDATION', 'liq-2', t0 + 2_000, 'ETHUSDT')),
        accountEvent(forceOrder(b.address, 'ADL', 'adl-2', t0 + 3_000)),
        // The clearance fee of liq-1, as risk records it in the income history.
        accountEvent({
          type: 'income',
          user: a.address,
          symbol: BTC,
          incomeType: 'INSURANCE_CLEAR',
          income: '-12.7475',
          asset: 'USDT',
          tradeId: 'liq-1',
          info: 'LIQUIDATION',
        }),
      ];
      for (const e of events) await bus.publish(TOPICS.accountEvents.name, (e as { user: string }).user, e);
    });
    const rows = async (u: User, params: Record<string, string> = {}) => {
      const r = await get(u, '/fapi/v1/forceOrders', params);
      expect(r.status).toBe(200);
      return (r.body as { orderId: string }[]).map((x) => x.orderId);
    };

    it("Binance's rows, newest first, liquidations and ADL closes, weight 5", async () => {
      const r = await get(a, '/fapi/v1/forceOrders');
      expect(r.status).toBe(200);
      expect(r.body).toHaveLength(3);
      expect(r.body[2]).toEqual({
        orderId: 'liq-1',
        symbol: BTC,
        status: 'FILLED',
        clientOrderId: 'autoclose-liq-1',
        price: '51000.5',
        avgPrice: '50990',
        origQty: '0.020',
        executedQty: '0.020',
        cumQuote: '1019.8',
        timeInForce: 'IOC',
        type: 'LIQUIDATION',
        reduceOnly: true,
        closePosition: false,
        side: 'BUY',
        positionSide: 'BOTH',
        stopPrice: '0',
        workingType: 'CONTRACT_PRICE',
        origType: 'LIMIT',
        time: t0,
        updateTime: t0 + 3,
      });
      expect(r.body[1]).toMatchObject({
        orderId: 'adl-1',
        clientOrderId: 'adl_autoclose-adl-1',
        timeInForce: 'GTC',
      });
      const again = await get(a, '/fapi/v1/forceOrders');
      expect(weight(again) - weight(r)).toBe(5);
    });

    it('filters by symbol (any alias), autoCloseType, startTime/endTime and limit', async () => {
      expect(await rows(a)).toEqual(['liq-2', 'adl-1', 'liq-1']);
      expect(await rows(a, { symbol: 'btc-usdt' })).toEqual(['adl-1', 'liq-1']);
      expect(await rows(a, { autoCloseType: 'ADL' })).toEqual(['adl-1']);
      expect(await rows(a, { autoCloseType: 'LIQUIDATION' })).toEqual(['liq-2', 'liq-1']);
      expect(await rows(a, { startTime: String(t0 + 1_000) })).toEqual(['liq-2', 'adl-1']);
      expect(await rows(a, { startTime: String(t0), endTime: String(t0 + 1_000) })).toEqual([
        'adl-1',
        'liq-1',
      ]);
      expect(await rows(a, { limit: '1' })).toEqual(['liq-2']);
      expect(await rows(a, { limit: '5000' })).toHaveLength(3);
      expect(await rows(b)).toEqual(['adl-2']);
      expect(await rows(d)).toEqual([]);
    });

    it('the clearance fee is INSURANCE_CLEAR income', async () => {
      const r = await get(a, '/fapi/v1/income', { incomeType: 'INSURANCE_CLEAR' });
      expect([r.status, r.body]).toEqual([
        200,
        [
          {
            symbol: BTC,
            incomeType: 'INSURANCE_CLEAR',
            income: '-12.7475',
            asset: 'USDT',
            info: 'LIQUIDATION',
            time: expect.any(Number),
            tranId: 'liq-1',
            tradeId: 'liq-1',
          },
        ],
      ]);
    });

    it('error rows: -1121, -1130, -1100, -1102 (HTTP 400) and the auth envelope', async () => {
      const cases: [Record<string, string>, number, string][] = [
        [{ symbol: 'DOGEUSDT' }, -1121, 'Invalid symbol.'],
        [{ autoCloseType: 'MARGIN' }, -1130, 'Invalid autoCloseType.'],
        [{ startTime: 'yesterday' }, -1100, "Illegal characters found in parameter 'startTime'."],
        [{ endTime: '-1' }, -1102, "Parameter 'endTime' must be at least 0."],
        [{ limit: '0' }, -1102, "Parameter 'limit' must be at least 1."],
      ];
      for (const [params, code, msg] of cases) {
        const r = await get(a, '/fapi/v1/forceOrders', params);
        expect([r.status, r.body]).toEqual([400, fapiError(code, msg)]);
      }
      const unsigned = await http(`${ex.url}/fapi/v1/forceOrders`, {
        headers: { 'x-mbx-apikey': a.key.api_key },
      });
      expect([unsigned.status, unsigned.body]).toEqual([401, authError('SIGNATURE_INVALID')]);
      const unknown = await signed(ex.url, '/fapi/v1/forceOrders', {
        api_key: 'f'.repeat(64),
        secret_key: 'x',
      });
      expect([unknown.status, unknown.body]).toEqual([401, authError('INVALID_API_KEY')]);
    });
  });

  describe('ADL quantiles and the native ADL endpoints', () => {
    beforeAll(async () => {
      // The engine's ranking of BTCUSDT: B and C long (5 and 2), A short (3); D holds nothing.
      const e: EngineEvent = {
        id: outputId(TOPICS.engineCommands.name, 0, '999999', 0),
        v: 1,
        time: 1_700_000_000_000,
        type: 'adl.quantiles',
        symbol: BTC,
        seq: 1_000_000,
        long: [
          [b.address, 5],
          [c.address, 2],
        ],
        short: [[a.address, 3]],
      };
      await bus.publish(TOPICS.engineEvents.name, BTC, e);
      await eventually(
        () => native(`/adl/${BTC}/rankings`),
        (r) => r.body?.update_time === 1_700_000_000_000,
      );
    });

    it('adlQuantile: the position side repeats BOTH, the other side 0; no position reads 0s', async () => {
      const q = (LONG: number, SHORT: number, BOTH: number, symbol = BTC) => ({
        symbol,
        adlQuantile: { LONG, SHORT, BOTH },
      });
      const r = await get(a, '/fapi/v1/adlQuantile', { symbol: 'BTC-USDT' });
      expect([r.status, r.body]).toEqual([200, [q(0, 3, 3)]]);
      expect((await get(b, '/fapi/v1/adlQuantile')).body).toEqual([q(5, 0, 5)]);
      expect((await get(c, '/fapi/v1/adlQuantile')).body).toEqual([q(2, 0, 2)]);
      expect((await get(d, '/fapi/v1/adlQuantile')).body).toEqual([]);
      expect((await get(d, '/fapi/v1/adlQuantile', { symbol: BTC })).body).toEqual([q(0, 0, 0)]);
      expect((await get(a, '/fapi/v1/adlQuantile', { symbol: 'ETHUSDT' })).body).toEqual([
        q(0, 0, 0, 'ETHUSDT'),
      ]);
      const bad = await get(a, '/fapi/v1/adlQuantile', { symbol: 'NOPEUSDT' });
      expect([bad.status, bad.body]).toEqual([400, fapiError(-1121, 'Invalid symbol.')]);
      const unsigned = await http(`${ex.url}/fapi/v1/adlQuantile`, {
        headers: { 'x-mbx-apikey': a.key.api_key },
      });
      expect([unsigned.status, unsigned.body]).toEqual([401, authError('SIGNATURE_INVALID')]);
    });

    it('rankings: positions per quantile and side, first in line first, no addresses', async () => {
      const r = await native('/adl/btc-usd/rankings');
      const buckets = (...n: number[]) => n.map((positions, i) => ({ quantile: 5 - i, positions }));
      expect([r.status, r.body]).toEqual([
        200,
        {
          symbol: BTC,
          long: buckets(1, 0, 0, 1, 0),
          short: buckets(0, 0, 1, 0, 0),
          update_time: 1_700_000_000_000,
        },
      ]);
      expect(r.text).not.toContain(a.address.slice(2));
      const none = await native('/adl/ETHUSDT/rankings');
      expect(none.body).toEqual({
        symbol: 'ETHUSDT',
        long: buckets(0, 0, 0, 0, 0),
        short: buckets(0, 0, 0, 0, 0),
        update_time: 0,
      });
    });

    it('events: the symbol’s ADL closes, newest first, anonymous; history: the caller’s, paged (JWT)', async () => {
      const events = await native(`/adl/${BTC}/events`);
      expect(events.status).toBe(200);
      expect(events.body.slice(0, 2)).toEqual([
        {
          symbol: BTC,
          side: 'SELL',
          position_side: 'LONG',
          price: '51000.5',
          quantity: '0.020',
          time: expect.any(Number),
        },
        {
          symbol: BTC,
          side: 'SELL',
          position_side: 'LONG',
          price: '51000.5',
          quantity: '0.020',
          time: expect.any(Number),
        },
      ]);
      expect(events.text).not.toMatch(/adl-|0x/);
      expect((await native(`/adl/${BTC}/events?limit=1`)).body).toHaveLength(1);

      const history = await native('/adl/history', a.token);
      expect([history.status, history.body]).toEqual([
        200,
        {
          items: [
            {
              order_id: 'adl-1',
              symbol: BTC,
              side: 'SELL',
              position_side: 'LONG',
              price: '51000.5',
              quantity: '0.020',
              time: expect.any(Number),
            },
          ],
          page: 1,
          limit: 50,
          total: 1,
        },
      ]);
      expect((await native('/adl/history?page=2&limit=1', a.token)).body).toEqual({
        items: [],
        page: 2,
        limit: 1,
        total: 1,
      });
      expect((await native('/adl/history', d.token)).body).toEqual({
        items: [],
        page: 1,
        limit: 50,
        total: 0,
      });
    });

    it('config: the ranking rule, quantiles, clearance fee and the market’s brackets', async () => {
      const r = await native('/adl/BTCUSDT/config');
      expect(r.status).toBe(200);
      const market = ex.app.get(MarketRegistry).find(BTC)!;
      expect(r.body.liquidation_fee_rate).toBe('0.0125');
      expect(r.body.quantiles.map((q: { quantile: number }) => q.quantile)).toEqual([5, 4, 3, 2, 1]);
      expect(r.body.maintenance_margin_brackets[0]).toEqual({
        bracket: 1,
        notional_floor: '0',
        notional_cap: market.maintenanceBrackets[0]!.notionalCap,
        maintenance_margin_rate: market.maintenanceBrackets[0]!.maintMarginRatio,
        max_leverage: market.maintenanceBrackets[0]!.maxLeverage,
        cum: '0',
      });
      expect(r.body.maintenance_margin_brackets[1].notional_floor).toBe(
        market.maintenanceBrackets[0]!.notionalCap,
      );
    });

    it('error rows: unknown market 404 INVALID_MARKET, bad limit/page 400 INVALID_REQUEST, no JWT 401', async () => {
      for (const path of ['/adl/DOGEUSDT/rankings', '/adl/DOGEUSDT/events', '/adl/DOGEUSDT/config']) {
        const r = await native(path);
        expect([r.status, r.body]).toEqual([404, nativeError('INVALID_MARKET')]);
      }
      for (const path of [`/adl/${BTC}/events?limit=0`, `/adl/${BTC}/events?limit=ten`]) {
        const r = await native(path);
        expect([r.status, r.body]).toEqual([400, nativeError('INVALID_REQUEST')]);
      }
      const badPage = await native('/adl/history?page=0', a.token);
      expect([badPage.status, badPage.body]).toEqual([400, nativeError('INVALID_REQUEST')]);
      for (const token of [undefined, 'not.a.jwt']) {
        const r = await native('/adl/history', token);
        expect([r.status, r.body]).toEqual([401, nativeError('INVALID_TOKEN')]);
      }
    });
  });

  describe('GET /admin/v1/insurance-fund', () => {
    it('balance = the sum of each partition’s latest share; movements paged, newest first', async () => {
      const before = (await admin('/insurance-fund')).body;
      // After every movement so far (funding rounds above ran at funding times ahead of the clock).
      const now = Math.max(Date.now(), before.history.items[0]?.time ?? 0) + 1000;
      const move = (
        partition: number,
        offset: number,
        kind: string,
        amount: string,
        balance: string,
        dt: number,
      ) => ({
        ...accountEvent(
          { type: 'insurance', partition, symbol: BTC, kind, amount, balance, ref: `r${offset}` },
          partition,
          offset,
        ),
        time: now + dt,
      });
      // Real partitions already hold funding dust from the rounds above: these movements are of
      // partitions no shard owns, so the fund grows by exactly their shares.
      // Partition 102's later input (offset 8) is its share, though published first.
      for (const e of [
        move(102, 8, 'BANKRUPTCY_LOSS', '-2.5', '10.25', 3),
        move(102, 5, 'LIQUIDATION_FEE', '12.75', '12.75', 1),
        move(106, 3, 'LIQUIDATION_FEE', '4.125', '4.125', 2),
      ])
        await bus.publish(TOPICS.accountEvents.name, 'insurance', e);
      // The shares and the page are two reads: the projector's insert may land between them.
      const r = await eventually(
        () => admin('/insurance-fund?limit=2'),
        (x) =>
          x.body?.history?.total === before.history.total + 3 &&
          (x.body?.partitions as { partition: number }[] | undefined)?.filter((p) => p.partition >= 102)
            .length === 2,
      );
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        asset: 'USDT',
        balance: new Money(before.balance).plus('14.375').toFixed(),
        history: { page: 1, limit: 2, total: before.history.total + 3 },
      });
      expect(r.body.partitions).toEqual(
        expect.arrayContaining([
          { partition: 102, balance: '10.25', time: now + 3 },
          { partition: 106, balance: '4.125', time: now + 2 },
        ]),
      );
      expect(r.body.ledger_balance).toBe((await admin('/solvency')).body.insurance_fund);
      expect(r.body.history.items).toEqual([
        {
          partition: 102,
          symbol: BTC,
          kind: 'BANKRUPTCY_LOSS',
          amount: '-2.5',
          balance: '10.25',
          ref: 'r8',
          time: now + 3,
        },
        {
          partition: 106,
          symbol: BTC,
          kind: 'LIQUIDATION_FEE',
          amount: '4.125',
          balance: '4.125',
          ref: 'r3',
          time: now + 2,
        },
      ]);
      expect(
        (await admin('/insurance-fund?page=2&limit=2')).body.history.items.map(
          (m: { ref: string }) => m.ref,
        )[0],
      ).toBe('r5');
    });

    it('error rows: 401 INVALID_TOKEN without the operator token, 400 INVALID_REQUEST for a bad page', async () => {
      for (const token of [null, 'wrong', a.token]) {
        const r = await admin('/insurance-fund', token);
        expect([r.status, r.body]).toEqual([401, nativeError('INVALID_TOKEN')]);
      }
      for (const q of ['page=0', 'limit=x', 'page=-1']) {
        const r = await admin(`/insurance-fund?${q}`);
        expect([r.status, r.body]).toEqual([400, nativeError('INVALID_REQUEST')]);
      }
    });
  });
});
