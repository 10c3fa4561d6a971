import { Bus } from '@perp/bus';
import { type AccountEvent, TOPICS } from '@perp/contracts';
import { INSURANCE_FUND, Money } from '@perp/domain';
import { RiskCommandsConsumer } from '@perp/risk';
import { signed } from '@perp/testing';
import { type InProcessExchange, noInterest, startInProcessExchange } from '../testing/in-process-exchange';
import { adminRequest, deposit, eventually, newTrader, type Trader } from './trading.harness';

const BTC = 'BTCUSDT';

// A mark move liquidates A against C's resting bid. Every figure is computed by hand from
// libs/domain/src/liquidation (no interest: mark = index with a one-sided book).
describe('liquidation against resting liquidity (embedded exchange over HTTP)', () => {
  let ex: InProcessExchange;
  let a: Trader;
  let b: Trader;
  let c: Trader;
  const events: AccountEvent[] = [];

  const index = async (indexPrice: string) => {
    const r = await adminRequest(ex.url, ex.adminToken, `/prices/${BTC}`, 'POST', {
      indexPrice,
      time: Date.now(),
    });
    expect(r.status).toBe(200);
    return (r.body as { markPrice: string }).markPrice;
  };
  const order = (t: Trader, params: Record<string, string>) =>
    signed(ex.url, '/fapi/v1/order', t.key, { method: 'POST', params });
  const get = (t: Trader, path: string, params: Record<string, string> = {}) =>
    signed(ex.url, path, t.key, { method: 'GET', params }).then((r) => r.body);
  const wallet = async (t: Trader) =>
    ((await get(t, '/fapi/v2/balance')) as { asset: string; balance: string }[]).find(
      (x) => x.asset === 'USDT',
    )?.balance;
  const position = async (t: Trader) =>
    ((await get(t, '/fapi/v2/positionRisk', { symbol: BTC })) as { positionAmt: string }[])[0]?.positionAmt;
  const ledgers = () => {
    const shard = ex.app.get(RiskCommandsConsumer).shard;
    return shard.ownedPartitions().map((p) => shard.book(p)!.ledger);
  };

  beforeAll(async () => {
    ex = await startInProcessExchange({}, { markets: noInterest });
    await ex.app.get(Bus).subscribe({
      groupId: 'liquidation-e2e',
      topics: [TOPICS.accountEvents.name],
      handler: (m) => {
        events.push(m.value as AccountEvent);
      },
    });
    [a, b, c] = [await newTrader(ex.url), await newTrader(ex.url), await newTrader(ex.url)];
    await deposit(ex.url, ex.adminToken, a.address, '300');
    await deposit(ex.url, ex.adminToken, b.address, '10000');
    await deposit(ex.url, ex.adminToken, c.address, '10000');
  }, 60_000);

  afterAll(async () => {
    await ex?.close();
  });

  it('closes the position at the resting bid, charges the clearance fee to the insurance fund', async () => {
    expect(await index('50000')).toBe('50000');
    // A buys 0.1 at 50000 from B: taker fee 5000 x 0.05 % = 2.5, wallet 297.5, margin 250 (20x).
    const gtc = { type: 'LIMIT', timeInForce: 'GTC' };
    expect(
      (await order(b, { symbol: BTC, side: 'SELL', ...gtc, price: '50000', quantity: '0.1' })).status,
    ).toBe(200);
    expect(
      (await order(a, { symbol: BTC, side: 'BUY', type: 'MARKET', quantity: '0.1' })).body,
    ).toMatchObject({
      status: 'FILLED',
    });
    // A's open bid holds 2.01 of margin: the liquidation cancels it first.
    expect(
      (await order(a, { symbol: BTC, side: 'BUY', ...gtc, price: '40000', quantity: '0.001' })).status,
    ).toBe(200);
    // C's bid: the liquidity the liquidation order takes (thinner than the impact notional: no premium).
    expect(
      (await order(c, { symbol: BTC, side: 'BUY', ...gtc, price: '47100', quantity: '0.1' })).status,
    ).toBe(200);

    // Mark 47300: margin balance 297.5 - 270 = 27.5 above maintenance 0.1 x 47300 x 0.4 % = 18.92.
    expect(await index('47300')).toBe('47300');
    expect(await position(a)).toBe('0.100');
    // Mark 47200: 17.5 <= 18.88. Bankruptcy (5000 - 297.5) / 0.1 = 47025; the fund is empty, so the
    // limit is 47025 and C's bid at 47100 fills it.
    expect(await index('47200')).toBe('47200');
    expect(
      await eventually(
        () => position(a),
        (v) => v === '0.000',
      ),
    ).toBe('0.000');
    // PnL 0.1 x (47100 - 50000) = -290 leaves 7.5; the fee, 47100 x 0.1 x 1.25 % = 58.875, takes it all.
    expect(
      await eventually(
        () => wallet(a),
        (v) => v !== undefined && new Money(v).isZero(),
      ),
    ).toMatch(/^0(\.0+)?$/);
    const fund = ledgers().reduce((s, l) => s.plus(l.balance(INSURANCE_FUND)), new Money(0));
    expect(fund.toFixed()).toBe('7.5');
    // C opened 0.1 long at 47100 as maker: fee 4710 x 0.02 % = 0.942.
    expect(await wallet(c)).toMatch(/^9999\.058(0*)$/);
    expect(await position(c)).toBe('0.100');
    // The ledgers still sum to the deposits.
    for (const l of ledgers()) expect(l.total().eq(l.totalDeposits)).toBe(true);
  }, 60_000);

  it('the liquidation order is in allOrders, its trade in userTrades, its fee in income', async () => {
    type Row = Record<string, unknown>;
    const orders = (await eventually(
      () => get(a, '/fapi/v1/allOrders', { symbol: BTC }) as Promise<Row[]>,
      (rows) => rows.some((o) => o.type === 'LIQUIDATION'),
    )) as Row[];
    expect(orders.map((o) => [o.type, o.status, o.side, o.executedQty])).toEqual([
      ['MARKET', 'FILLED', 'BUY', '0.100'],
      ['LIMIT', 'CANCELED', 'BUY', '0.000'],
      ['LIQUIDATION', 'FILLED', 'SELL', '0.100'],
    ]);
    const liq = orders[2]!;
    expect(liq).toMatchObject({ price: '47025.0', avgPrice: '47100', timeInForce: 'IOC', reduceOnly: true });

    const trades = (await get(a, '/fapi/v1/userTrades', { symbol: BTC })) as Row[];
    expect(
      trades.map((t) => [t.side, t.price, t.qty, t.commission, t.realizedPnl, t.maker, t.orderId]),
    ).toEqual([
      ['BUY', '50000.0', '0.100', '2.5', '0', false, orders[0]!.orderId],
      ['SELL', '47100.0', '0.100', '0', '-290', false, liq.orderId],
    ]);

    const income = (await get(a, '/fapi/v1/income', { symbol: BTC })) as Row[];
    expect(income.map((i) => [i.incomeType, i.income, i.tradeId]).sort()).toEqual([
      ['COMMISSION', '-2.5', trades[0]!.id],
      ['INSURANCE_CLEAR', '-7.5', trades[1]!.id],
      ['REALIZED_PNL', '-290', trades[1]!.id],
    ]);
  }, 30_000);

  it('publishes the margin call, the force order and the insurance movement as account events', async () => {
    const ofType = <K extends AccountEvent['type']>(type: K) =>
      events.filter((e): e is Extract<AccountEvent, { type: K }> => e.type === type);
    await eventually(
      async () => ofType('forceOrder').length,
      (n) => n > 0,
    );
    expect(ofType('marginCall').filter((e) => e.user === a.address)).toMatchObject([
      {
        crossWalletBalance: '297.5',
        positions: [
          {
            symbol: BTC,
            positionSide: 'LONG',
            positionAmt: '0.1',
            marginType: 'CROSSED',
            markPrice: '47200',
          },
        ],
      },
    ]);
    const orders = (await get(a, '/fapi/v1/allOrders', { symbol: BTC })) as {
      orderId: string;
      type: string;
    }[];
    expect(ofType('forceOrder')).toEqual([
      expect.objectContaining({
        user: a.address,
        forceOrder: {
          orderId: orders.find((o) => o.type === 'LIQUIDATION')!.orderId,
          symbol: BTC,
          autoCloseType: 'LIQUIDATION',
          side: 'SELL',
          price: '47025.0',
          avgPrice: '47100',
          origQty: '0.100',
          executedQty: '0.100',
          fee: '7.5',
          time: expect.any(Number),
          updateTime: expect.any(Number),
        },
      }),
    ]);
    expect(ofType('insurance').map((e) => [e.kind, e.symbol, e.amount, e.balance])).toEqual([
      ['LIQUIDATION_FEE', BTC, '7.5', '7.5'],
    ]);
  });
});
