import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The durable form of market data's hot-store-only projections, written in its turn's statement so
 * that a restart can rebuild the hot store: each symbol's L2 book (its levels, the book seq they
 * stand at, the last trade in the positions, its engine-events partition), its latest ADL
 * quantiles and its latest mark price event.
 */
export class MarketBooks1764400000000 implements MigrationInterface {
  name = 'MarketBooks1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE market_books (
        symbol text NOT NULL,
        partition integer NOT NULL,
        seq bigint NOT NULL,
        time bigint NOT NULL,
        trade_seq bigint NOT NULL,
        trade_time bigint NOT NULL,
        CONSTRAINT market_books_pkey PRIMARY KEY (symbol)
      )`);
    await q.query(`
      CREATE TABLE market_book_levels (
        symbol text NOT NULL,
        side text NOT NULL,
        price numeric NOT NULL,
        qty numeric NOT NULL,
        CONSTRAINT market_book_levels_pkey PRIMARY KEY (symbol, side, price),
        CONSTRAINT market_book_levels_side_check CHECK (side IN ('BID', 'ASK'))
      )`);
    await q.query(`
      CREATE TABLE market_adl_quantiles (
        symbol text NOT NULL,
        seq bigint NOT NULL,
        time bigint NOT NULL,
        long text NOT NULL,
        short text NOT NULL,
        CONSTRAINT market_adl_quantiles_pkey PRIMARY KEY (symbol)
      )`);
    await q.query(`
      CREATE TABLE market_prices (
        symbol text NOT NULL,
        partition integer NOT NULL,
        mark_price numeric NOT NULL,
        index_price numeric NOT NULL,
        last_price numeric NOT NULL,
        funding_rate numeric NOT NULL,
        next_funding_time bigint NOT NULL,
        time bigint NOT NULL,
        CONSTRAINT market_prices_pkey PRIMARY KEY (symbol)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['market_prices', 'market_adl_quantiles', 'market_book_levels', 'market_books'])
      await q.query(`DROP TABLE ${t}`);
  }
}
