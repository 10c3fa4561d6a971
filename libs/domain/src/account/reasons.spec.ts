// Test-only import: domain code must not depend on contracts, the names must still agree.
import { OUTCOME_REASONS } from '@perp/contracts';
import { BOOK_REJECT_REASONS } from '../order-book/types';
import { TRIGGER_REJECT_REASONS } from '../triggers/trigger-orders';
import { LEVERAGE_REJECT_REASONS, MARGIN_REJECT_REASONS, PRE_TRADE_REJECT_REASONS } from './reasons';

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
