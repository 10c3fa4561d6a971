import { parseDecimal } from '@perp/domain';
import { balanceEvent, refusal, type RiskHandler } from './risk-context';

/** Admin deposit: credits the wallet. A replay is deduped by its place in the log; the same deposit id sent twice credits twice. */
export const deposit: RiskHandler<'deposit'> = (ctx, cmd) => {
  const amount = parseDecimal(cmd.amount);
  if (!amount || !amount.gt(0)) {
    ctx.out.reply = refusal('INVALID_AMOUNT', 'amount must be positive');
    return;
  }
  const book = ctx.p.book;
  book.deposit(cmd.user, amount, cmd.id);
  balanceEvent(ctx, cmd.user);
  const b = book.balances(cmd.user);
  ctx.out.reply = {
    ok: true,
    result: {
      address: cmd.user,
      asset: cmd.asset,
      balance: b.walletBalance.toFixed(),
      availableBalance: b.availableBalance.toFixed(),
    },
  };
};
