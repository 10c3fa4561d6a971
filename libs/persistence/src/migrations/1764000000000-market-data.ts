import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Public market data, projected from the engine-events and prices logs by the market-data service
 * (one transaction per turn, with its mark in processed_offsets). Trade ids are the engine's
 * per-symbol sequence number of the fill, so they are integers clients page with `fromId`;
 * aggregated trades take the id of their first trade. Candles are true buckets of every interval
 * per series (last price, mark, index, premium); ticker minutes rebuild the rolling 24 h ticker on
 * a restart; statistics rows are per futures-data period.
 */
export class MarketData1764000000000 implements MigrationInterface {
  name = 'MarketData1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE market_trades (
        symbol text NOT NULL,
        id bigint NOT NULL,
        trade_id uuid NOT NULL,
        price numeric NOT NULL,
        qty numeric NOT NULL,
        quote_qty numeric NOT NULL,
        taker_side text NOT NULL,
        taker_order_id text NOT NULL,
        time bigint NOT NULL,
        CONSTRAINT market_trades_pkey PRIMARY KEY (symbol, id),
        CONSTRAINT market_trades_taker_side_check CHECK (taker_side IN ('BUY', 'SELL'))
      )`);
    await q.query(`CREATE INDEX market_trades_symbol_time_idx ON market_trades (symbol, time, id)`);
    await q.query(`
      CREATE TABLE market_agg_trades (
        symbol text NOT NULL,
        id bigint NOT NULL,
        price numeric NOT NULL,
        qty numeric NOT NULL,
        first_id bigint NOT NULL,
        last_id bigint NOT NULL,
        time bigint NOT NULL,
        buyer_maker boolean NOT NULL,
        taker_order_id text NOT NULL,
        CONSTRAINT market_agg_trades_pkey PRIMARY KEY (symbol, id)
      )`);
    await q.query(`CREATE INDEX market_agg_trades_symbol_time_idx ON market_agg_trades (symbol, time, id)`);
    await q.query(`
      CREATE TABLE market_candles (
        symbol text NOT NULL,
        series text NOT NULL,
        "interval" text NOT NULL,
        open_time bigint NOT NULL,
        close_time bigint NOT NULL,
        open numeric NOT NULL,
        high numeric NOT NULL,
        low numeric NOT NULL,
        close numeric NOT NULL,
        volume numeric NOT NULL,
        quote_volume numeric NOT NULL,
        count integer NOT NULL,
        taker_buy_volume numeric NOT NULL,
        taker_buy_quote_volume numeric NOT NULL,
        CONSTRAINT market_candles_pkey PRIMARY KEY (symbol, series, "interval", open_time),
        CONSTRAINT market_candles_series_check CHECK (series IN ('last', 'mark', 'index', 'premium'))
      )`);
    await q.query(`
      CREATE TABLE market_ticker_minutes (
        symbol text NOT NULL,
        open_time bigint NOT NULL,
        open numeric NOT NULL,
        high numeric NOT NULL,
        low numeric NOT NULL,
        close numeric NOT NULL,
        volume numeric NOT NULL,
        quote_volume numeric NOT NULL,
        count integer NOT NULL,
        first_time bigint NOT NULL,
        last_time bigint NOT NULL,
        last_qty numeric NOT NULL,
        CONSTRAINT market_ticker_minutes_pkey PRIMARY KEY (symbol, open_time)
      )`);
    await q.query(`
      CREATE TABLE market_statistics (
        symbol text NOT NULL,
        period text NOT NULL,
        time bigint NOT NULL,
        open_interest numeric NOT NULL,
        open_interest_value numeric NOT NULL,
        long_accounts numeric NOT NULL,
        short_accounts numeric NOT NULL,
        top_long_accounts numeric NOT NULL,
        top_short_accounts numeric NOT NULL,
        top_long_positions numeric NOT NULL,
        top_short_positions numeric NOT NULL,
        CONSTRAINT market_statistics_pkey PRIMARY KEY (symbol, period, time)
      )`);
    await q.query(`
      CREATE TABLE market_positions (
        symbol text NOT NULL,
        "user" text NOT NULL,
        size numeric NOT NULL,
        CONSTRAINT market_positions_pkey PRIMARY KEY (symbol, "user")
      )`);
    await q.query(`
      CREATE TABLE funding_rates (
        symbol text NOT NULL,
        funding_time bigint NOT NULL,
        funding_rate numeric NOT NULL,
        mark_price numeric NOT NULL,
        CONSTRAINT funding_rates_pkey PRIMARY KEY (symbol, funding_time)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [
      'funding_rates',
      'market_positions',
      'market_statistics',
      'market_ticker_minutes',
      'market_candles',
      'market_agg_trades',
      'market_trades',
    ])
      await q.query(`DROP TABLE ${t}`);
  }
}
