import { parseMarket } from '@perp/domain';
import type { RiskHandler } from './risk-context';

/**
 * A market's status (and definition), copied by the engine as it applied it: orders and algo
 * orders of this partition's users are checked against it from here on in the log, and so again
 * on a replay.
 */
export const marketState: RiskHandler<'market.state'> = (ctx, cmd) => {
  ctx.p.markets.apply(cmd.symbol, cmd.status, cmd.source, cmd.market && parseMarket(cmd.market));
};
