import type { EngineCommand } from '@perp/contracts';
import { Money, positionAdlScore } from '@perp/domain';
import { forwarded, type RiskContext } from './risk-context';

const ZERO = new Money(0);

/**
 * The index after every command the input forwarded so far: a forwarded command's (offset, index)
 * must grow in the order the engine receives them (it dedupes risk replays by them).
 */
export function nextForwardIndex(ctx: RiskContext): number {
  let next = 0;
  for (const c of ctx.out.engineCommands)
    if ('origin' in c && c.origin) next = Math.max(next, (c.origin.index ?? 0) + 1);
  return next;
}

/** The ADL scores of the partition's open positions on `symbol`, sorted by user. */
export function adlScoresOf(ctx: RiskContext, symbol: string): { user: string; score: string }[] {
  const { book } = ctx.p;
  const markets = (s: string) => ctx.markets.find(s);
  const out: { user: string; score: string }[] = [];
  for (const user of book.holders(symbol)) {
    const account = book.account(user);
    const view = account.positionViews(book.markPrices, markets).find((v) => v.symbol === symbol);
    if (!view || view.size.isZero()) continue;
    // Margin mode is per account: a cross account holds no isolated margin (no balances() pass).
    const balances = { walletBalance: account.walletBalance, isolatedMargin: ZERO };
    out.push({ user, score: positionAdlScore(view, balances).toFixed() });
  }
  return out.sort((a, b) => (a.user < b.user ? -1 : a.user > b.user ? 1 : 0));
}

/**
 * On a mark of `symbol`: the ADL score of every open position of the partition's users on it, as
 * one `adl.scores` for the engine (it replaces the partition's previous list), unless the list is
 * the one sent last. The last one sent is partition state (snapshotted), so a replay decides the
 * same; an empty list is sent once when the last position closes.
 */
export function publishAdlScores(ctx: RiskContext, symbol: string, time: number): void {
  const { p } = ctx;
  const scores = adlScoresOf(ctx, symbol);
  const key = JSON.stringify(scores);
  if ((p.adlSent.get(symbol) ?? '[]') === key) return;
  if (scores.length) p.adlSent.set(symbol, key);
  else p.adlSent.delete(symbol);
  const cmd: EngineCommand = Object.assign(forwarded(ctx, time, nextForwardIndex(ctx)), {
    type: 'adl.scores' as const,
    symbol,
    partition: ctx.m.partition,
    scores,
  });
  ctx.out.engineCommands.push(cmd);
}
