// Here, not in libs/domain: the domain depends on nothing with I/O; the names must still agree.
import {
  BOOK_REJECT_REASONS,
  LEVERAGE_REJECT_REASONS,
  MARGIN_REJECT_REASONS,
  PRE_TRADE_REJECT_REASONS,
  TRIGGER_REJECT_REASONS,
} from '@perp/domain';
import { OUTCOME_REASONS } from '../outcomes/reasons';

describe('reject reasons', () => {
  it.each([
    ...PRE_TRADE_REJECT_REASONS,
    ...LEVERAGE_REJECT_REASONS,
    ...MARGIN_REJECT_REASONS,
    ...TRIGGER_REJECT_REASONS,
    ...BOOK_REJECT_REASONS,
  ])('%s is an outcome reason of the contracts', (name) => {
    expect(OUTCOME_REASONS).toContain(name);
  });
});
