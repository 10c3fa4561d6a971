import { parseDecimal } from '@perp/domain';
import { refusal, type RiskHandler } from './risk-context';

/** Adds to or removes from an isolated position's collateral. */
export const moveCollateral: RiskHandler<'collateral'> = (ctx, cmd) => {
  const amount = parseDecimal(cmd.amount);
  if (!amount || !amount.gt(0)) {
    ctx.out.reply = refusal('INVALID_AMOUNT', 'amount must be positive');
    return;
  }
  const book = ctx.p.book;
  const r =
    cmd.action === 'add'
      ? book.addCollateral(cmd.user, cmd.symbol, amount)
      : book.removeCollateral(cmd.user, cmd.symbol, amount);
  if (!r.ok) {
    ctx.out.reply = refusal(r.reason, r.message);
    return;
  }
  ctx.out.reply = {
    ok: true,
    result: {
      symbol: r.symbol,
      collateral: r.collateral.toFixed(),
      isolatedMargin: r.isolatedMargin.toFixed(),
    },
  };
  ctx.out.users.add(cmd.user);
};
