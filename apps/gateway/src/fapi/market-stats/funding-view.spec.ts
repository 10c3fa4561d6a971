import { Money } from '@perp/domain';
import { fapiOpenInterest } from '../../native/trading/open-interest-view';
import { fundingInfoRow, fundingRateRow, markPriceRow, nextFundingTime } from './funding-view';
import { btcMarket } from '../../markets/market.fixture';

const H = 3_600_000;
const DAY = Date.UTC(2026, 4, 12);
const market = btcMarket({
  maintenanceBrackets: [{ notionalCap: '50000', maintMarginRatio: '0.004', maxLeverage: 125 }],
});

describe('nextFundingTime', () => {
  it('is the next multiple of the funding interval since the epoch, strictly after now', () => {
    const eight = { fundingIntervalHours: 8 };
    expect(nextFundingTime(eight, DAY)).toBe(DAY + 8 * H);
    expect(nextFundingTime(eight, DAY + 1)).toBe(DAY + 8 * H);
    expect(nextFundingTime(eight, DAY + 8 * H - 1)).toBe(DAY + 8 * H);
    expect(nextFundingTime(eight, DAY + 16 * H + 5)).toBe(DAY + 24 * H);
    expect(nextFundingTime({ fundingIntervalHours: 1 }, DAY + 90 * 60_000)).toBe(DAY + 2 * H);
    expect(nextFundingTime({ fundingIntervalHours: 4 }, DAY + 5 * H)).toBe(DAY + 8 * H);
  });
});

describe('markPriceRow', () => {
  const now = DAY + 3 * H;
  const price = { mark: new Money('65000.1'), index: new Money('65000.1'), time: now - 500 };

  it("renders Binance's mark price record: 8 decimals, mark = estimated settle price", () => {
    const funding = { symbol: 'BTCUSDT', fundingTime: DAY, fundingRate: '-0.000375', markPrice: '64000' };
    expect(markPriceRow(market, price, funding, now)).toEqual({
      symbol: 'BTCUSDT',
      markPrice: '65000.10000000',
      indexPrice: '65000.10000000',
      estimatedSettlePrice: '65000.10000000',
      lastFundingRate: '-0.00037500',
      interestRate: '0.00001250',
      nextFundingTime: DAY + 8 * H,
      time: now - 500,
    });
  });

  it("lastFundingRate is the current interval's estimate when the mark carries one", () => {
    const funding = { symbol: 'BTCUSDT', fundingTime: DAY, fundingRate: '-0.000375', markPrice: '64000' };
    const estimated = { ...price, fundingRate: new Money('0.0095') };
    expect(markPriceRow(market, estimated, funding, now).lastFundingRate).toBe('0.00950000');
  });

  it('answers 0 before the first settlement and zeros stamped now before the first price', () => {
    expect(markPriceRow(market, { time: 0 }, undefined, now)).toMatchObject({
      markPrice: '0.00000000',
      indexPrice: '0.00000000',
      estimatedSettlePrice: '0.00000000',
      lastFundingRate: '0.00000000',
      time: now,
    });
  });
});

describe('funding rows', () => {
  it('fundingRate: rate and mark at 8 decimals', () => {
    expect(
      fundingRateRow({ symbol: 'BTCUSDT', fundingTime: DAY, fundingRate: '0.0001', markPrice: '34287.546' }),
    ).toEqual({
      symbol: 'BTCUSDT',
      fundingRate: '0.00010000',
      fundingTime: DAY,
      markPrice: '34287.54600000',
    });
  });

  it('fundingInfo: the clamp from the market configuration', () => {
    expect(fundingInfoRow(market)).toEqual({
      symbol: 'BTCUSDT',
      adjustedFundingRateCap: '0.02000000',
      adjustedFundingRateFloor: '-0.02000000',
      fundingIntervalHours: 8,
      disclaimer: false,
    });
    expect(fundingInfoRow({ ...market, fundingRateCap: '0.0075', fundingIntervalHours: 4 })).toMatchObject({
      adjustedFundingRateCap: '0.00750000',
      adjustedFundingRateFloor: '-0.00750000',
      fundingIntervalHours: 4,
    });
  });
});

describe('fapiOpenInterest', () => {
  it("is the spec's long + short at the lot precision, stamped with the reading's time", () => {
    const oi = { symbol: 'BTCUSDT', long: new Money('1.25'), short: new Money('1.25'), time: DAY };
    expect(fapiOpenInterest(market, oi, DAY + 7)).toEqual({
      openInterest: '2.500',
      symbol: 'BTCUSDT',
      time: DAY + 7,
    });
  });
});
