import type { AccountEvent } from '@perp/contracts';
import { accountUpdate, updateReason } from './user-payloads';

const user = '0x' + 'ab'.repeat(20);
const base = { v: 1 as const, time: 5, user };
const balance: AccountEvent = {
  ...base,
  id: 'i/0',
  type: 'balance',
  asset: 'USDT',
  walletBalance: '90',
  frozen: '0',
};
const position: AccountEvent = {
  ...base,
  id: 'i/1',
  type: 'position',
  symbol: 'BTCUSDT',
  size: '0',
  entryPrice: '0',
  leverage: 20,
};
const income = (incomeType: 'INSURANCE_CLEAR' | 'FUNDING_FEE' | 'REALIZED_PNL'): AccountEvent => ({
  ...base,
  id: 'i/2',
  type: 'income',
  symbol: 'BTCUSDT',
  incomeType,
  income: '-1',
  asset: 'USDT',
  tradeId: '',
  info: '',
});
const forceOrder = (autoCloseType: 'ADL' | 'LIQUIDATION'): AccountEvent => ({
  ...base,
  id: 'i/3',
  type: 'forceOrder',
  forceOrder: {
    orderId: 'f',
    symbol: 'BTCUSDT',
    autoCloseType,
    side: 'SELL',
    price: '1',
    avgPrice: '1',
    origQty: '1',
    executedQty: '1',
    fee: '0',
    time: 1,
    updateTime: 1,
  },
});

describe('ACCOUNT_UPDATE reasons', () => {
  it('ADL when the input closed an ADL force order, INSURANCE_CLEAR for the clearance fee', () => {
    expect(updateReason([position, balance, forceOrder('ADL')])).toBe('ADL');
    expect(updateReason([balance, income('INSURANCE_CLEAR'), forceOrder('LIQUIDATION')])).toBe(
      'INSURANCE_CLEAR',
    );
    expect(updateReason([balance, income('FUNDING_FEE')])).toBe('FUNDING_FEE');
    expect(updateReason([balance])).toBe('DEPOSIT');
    expect(updateReason([balance, income('REALIZED_PNL')])).toBeUndefined();
  });

  it('carries the reason with the balances and positions; nothing when the input moved neither', () => {
    const change = { user, time: 5, events: [position, balance, forceOrder('ADL')] };
    expect(accountUpdate(change, undefined, 9)).toEqual({
      e: 'ACCOUNT_UPDATE',
      E: 9,
      T: 5,
      a: {
        m: 'ADL',
        B: [{ a: 'USDT', wb: '90.00000000', cw: '90.00000000', bc: '0.00000000' }],
        P: [expect.objectContaining({ s: 'BTCUSDT', pa: '0' })],
      },
    });
    expect(accountUpdate({ user, time: 5, events: [forceOrder('ADL')] }, undefined, 9)).toBeUndefined();
  });
});
