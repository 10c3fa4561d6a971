import { ALICE, deposit, newOrder, riskHarness } from './__fixtures__/risk-context';

describe('deposit handler', () => {
  it('credits the wallet, answers with the balances and emits a balance event', () => {
    const h = riskHarness();
    const out = h.run(deposit(ALICE, '1000'), { reply: true });
    expect(out.reply).toEqual({
      ok: true,
      result: { address: ALICE, asset: 'USDT', balance: '1000', availableBalance: '1000' },
    });
    expect(out.replyTo).toEqual(h.replyTo());
    expect(out.accountEvents).toEqual([
      { type: 'balance', user: ALICE, asset: 'USDT', walletBalance: '1000', frozen: '0' },
    ]);
    expect([...out.users]).toEqual([ALICE]);
    expect(out.engineCommands).toEqual([]);
    expect(h.book.account(ALICE).walletBalance.toFixed()).toBe('1000');
  });

  it('adds to what is there; the available balance excludes frozen margin', () => {
    const h = riskHarness();
    h.run(deposit(ALICE, '1000', 'd1'));
    // 0.01 x 60000 / 20 x 1.005 = 30.15 frozen
    h.run(newOrder(1));
    const out = h.run(deposit(ALICE, '0.5', 'd2'));
    expect(out.reply?.result).toMatchObject({ balance: '1000.5', availableBalance: '970.35' });
    expect(out.accountEvents).toEqual([
      { type: 'balance', user: ALICE, asset: 'USDT', walletBalance: '1000.5', frozen: '30.15' },
    ]);
  });

  it.each(['0', '-5', 'abc', ''])('refuses amount %p with INVALID_AMOUNT and changes nothing', (amount) => {
    const h = riskHarness();
    const out = h.run(deposit(ALICE, amount), { reply: true });
    expect(out.reply).toEqual({
      ok: false,
      error: { reason: 'INVALID_AMOUNT', msg: 'amount must be positive' },
    });
    expect(out.accountEvents).toEqual([]);
    expect(out.users.size).toBe(0);
    expect(h.book.find(ALICE)).toBeUndefined();
  });
});
