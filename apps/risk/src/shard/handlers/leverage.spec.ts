import { ALICE, cmd, deposit, newOrder, riskHarness } from './__fixtures__/risk-context';

const leverage = (value: number, symbol = 'BTCUSDT') =>
  cmd({ type: 'leverage.set', user: ALICE, symbol, leverage: value });

describe('leverage handler', () => {
  it('sets the leverage and answers with the notional cap of the brackets that allow it', () => {
    const h = riskHarness();
    const out = h.run(leverage(10), { reply: true });
    // BTCUSDT's largest bracket with maxLeverage >= 10 caps at 230,000,000
    expect(out.reply).toEqual({
      ok: true,
      result: { leverage: 10, maxNotionalValue: '230000000', symbol: 'BTCUSDT' },
    });
    expect([...out.users]).toEqual([ALICE]);
    expect(h.run(leverage(125)).reply?.result).toMatchObject({ leverage: 125, maxNotionalValue: '50000' });
  });

  it('publishes a change as a leverage account event, a repeat of the standing value as nothing', () => {
    const h = riskHarness();
    expect(h.run(leverage(10)).accountEvents).toEqual([
      { type: 'leverage', user: ALICE, symbol: 'BTCUSDT', leverage: 10 },
    ]);
    expect(h.run(leverage(10)).accountEvents).toEqual([]);
    // 20 is the default an account starts with: setting it on a fresh account changes nothing.
    expect(h.run(leverage(20, 'ETHUSDT')).accountEvents).toEqual([]);
  });

  it("margins the user's next order at the new leverage", () => {
    const h = riskHarness();
    h.run(deposit(ALICE, '1000'));
    h.run(leverage(10));
    const out = h.run(newOrder(1));
    // 600 / 10 x 1.005
    expect(out.engineCommands[0]).toMatchObject({ frozenMargin: '60.3' });
  });

  it.each([0, 126, 2.5])('refuses leverage %p with INVALID_LEVERAGE', (value) => {
    const h = riskHarness();
    const out = h.run(leverage(value), { reply: true });
    expect(out.reply).toEqual({
      ok: false,
      error: { reason: 'INVALID_LEVERAGE', msg: 'leverage must be an integer from 1 to 125' },
    });
    expect(out.users.size).toBe(0);
    expect(out.accountEvents).toEqual([]);
    expect(h.book.account(ALICE).leverage(h.markets.find('BTCUSDT')!)).toBe(20);
  });

  it('refuses an unknown symbol with INVALID_SYMBOL', () => {
    const out = riskHarness().run(leverage(5, 'XRPUSDT'), { reply: true });
    expect(out.reply).toEqual({
      ok: false,
      error: { reason: 'INVALID_SYMBOL', msg: 'unknown symbol XRPUSDT' },
    });
  });
});
