import { Account } from '@perp/domain';
import { accountConfigView, symbolConfigView } from './account-config-view';
import { btcMarket } from '../../markets/market.fixture';

const market = btcMarket({
  maintenanceBrackets: [
    { notionalCap: '50000', maintMarginRatio: '0.004', maxLeverage: 125 },
    { notionalCap: '250000', maintMarginRatio: '0.005', maxLeverage: 100 },
    { notionalCap: '1000000', maintMarginRatio: '0.01', maxLeverage: 50 },
  ],
});

describe('account configuration views', () => {
  it("accountConfig: the account's fee tier and the fixed flags of a one-way, one-asset account", () => {
    const a = new Account('0xabc');
    a.assignVipTier(3);
    expect(accountConfigView(a)).toEqual({
      feeTier: 3,
      canTrade: true,
      canDeposit: true,
      canWithdraw: false,
      dualSidePosition: false,
      updateTime: 0,
      multiAssetsMargin: false,
      tradeGroupId: -1,
    });
  });

  it("symbolConfig: the standing leverage (the market's default until set) and what it allows", () => {
    const a = new Account('0xabc');
    expect(symbolConfigView(a, market)).toEqual({
      symbol: 'BTCUSDT',
      marginType: 'CROSSED',
      isAutoAddMargin: 'false',
      leverage: 20,
      maxNotionalValue: '1000000',
    });
    a.setLeverage(market, 110);
    expect(symbolConfigView(a, market)).toMatchObject({ leverage: 110, maxNotionalValue: '50000' });
    // A maximum lowered by the operator clamps the standing leverage.
    expect(symbolConfigView(a, { ...market, maxLeverage: 75 })).toMatchObject({ leverage: 75 });
  });

  it('symbolConfig: an isolated account says ISOLATED', () => {
    const a = new Account('0xabc');
    a.setMarginMode('ISOLATED');
    expect(symbolConfigView(a, market).marginType).toBe('ISOLATED');
  });
});
