/** A funding time (2024-01-15 12:00 UTC). */
export const T0 = Date.UTC(2024, 0, 15, 12, 0);

/** The funding fields of a 20x market that funds every minute (impact notional 4,000 USDT). */
export const oneMinuteMarket = {
  maxLeverage: 20,
  interestRate: '0.0000125',
  fundingIntervalHours: 8,
  fundingIntervalMinutes: 1,
  fundingRateCap: '0.02',
};
