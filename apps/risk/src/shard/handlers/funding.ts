import { INSURANCE_FUND, parseDecimal } from '@perp/domain';
import { balanceEvent, type RiskHandler } from './risk-context';

/**
 * A market's funding round: every position of the partition's users in the symbol pays (long, a
 * positive rate) or receives size × mark × rate through the partition's insurance account
 * (AccountBook.applyFunding: rounded toward −∞ at 8 decimals, so each partition's insurance
 * account takes its users' net, the dust), as FUNDING_FEE income with the round's id as tranId.
 * Exactly once: a round at or before the last one applied for the symbol is dropped (a router
 * replay copies it again under a new offset; the shard's offset check covers its own replays).
 */
export const settleFunding: RiskHandler<'funding.settle'> = (ctx, cmd) => {
  const { p, out } = ctx;
  const last = p.fundingTimes.get(cmd.symbol);
  if (last !== undefined && cmd.fundingTime <= last) return;
  p.fundingTimes.set(cmd.symbol, cmd.fundingTime);
  const rate = parseDecimal(cmd.fundingRate);
  const mark = parseDecimal(cmd.markPrice);
  if (!rate || !mark?.gt(0)) return;
  const holders = p.book
    .allAccounts()
    .filter((a) => a.position(cmd.symbol))
    .map((a) => a.user)
    .sort();
  const before = p.book.ledger.balance(INSURANCE_FUND);
  for (const user of holders) {
    const { income } = p.book.applyFunding(user, cmd.symbol, rate, mark, cmd.fundingTime, cmd.id);
    if (!income) continue;
    out.accountEvents.push({
      type: 'income',
      user,
      symbol: cmd.symbol,
      incomeType: 'FUNDING_FEE',
      income: income.income.toFixed(),
      asset: 'USDT',
      tradeId: income.tradeId,
      info: income.info,
    });
    balanceEvent(ctx, user);
  }
  // What the round left in (or took from) the partition's insurance share: its FUNDING_DUST.
  const after = p.book.ledger.balance(INSURANCE_FUND);
  if (!after.eq(before))
    out.accountEvents.push({
      type: 'insurance',
      partition: p.partition,
      symbol: cmd.symbol,
      kind: 'FUNDING_DUST',
      amount: after.minus(before).toFixed(),
      balance: after.toFixed(),
      ref: cmd.id,
    });
};
