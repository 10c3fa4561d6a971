import { ALICE, BOB, bookFill, cmd, riskHarness } from './__fixtures__/risk-context';

const vip = (tier: number) => cmd({ type: 'vip.set', user: ALICE, tier, actor: 'admin' });

describe('VIP tier handler', () => {
  it('sets a tier the chain defines and answers with it', () => {
    const h = riskHarness();
    const out = h.run(vip(9), { reply: true });
    expect(out.reply).toEqual({ ok: true, result: { address: ALICE, tier: 9 } });
    expect([...out.users]).toEqual([ALICE]);
    expect(out.accountEvents).toEqual([]);
    expect(h.book.account(ALICE).vipTier).toBe(9);
  });

  it('the tier sets the fee of the next fill (tier 9: maker 0, taker 0.017 %)', () => {
    const h = riskHarness();
    h.run(vip(9));
    const fill = (user: string, liquidity: 'MAKER' | 'TAKER', n: number) =>
      bookFill(h, user, 'BUY', '0.01', n, liquidity).commission;
    expect(fill(ALICE, 'MAKER', 1).toFixed()).toBe('0');
    expect(fill(ALICE, 'TAKER', 2).toFixed()).toBe('0.102');
    // Tier 0 for a user never set: 600 x 0.0005
    expect(fill(BOB, 'TAKER', 3).toFixed()).toBe('0.3');
  });

  it('refuses a tier the chain does not define with INVALID_VIP_TIER', () => {
    const h = riskHarness();
    h.run(vip(2));
    const out = h.run(vip(10), { reply: true });
    expect(out.reply).toEqual({
      ok: false,
      error: { reason: 'INVALID_VIP_TIER', msg: 'no VIP tier 10 on this chain' },
    });
    expect(out.users.size).toBe(0);
    expect(h.book.account(ALICE).vipTier).toBe(2);
  });
});
