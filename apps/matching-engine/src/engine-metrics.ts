import { BookSide, type MarketRegistry } from '@perp/domain';
import type { Metrics } from '@perp/runtime';
import type { EngineShard } from './shard/engine-shard';

/** Book sizes of the symbols this member owns, read when Prometheus scrapes. */
export function sampleBooks(metrics: Metrics, shard: EngineShard, markets: MarketRegistry): void {
  const owned = () =>
    markets.list().flatMap((m) => {
      const book = shard.book(m.symbol);
      return book ? [{ symbol: m.symbol, book }] : [];
    });
  metrics.engineBookOrders.add(() =>
    owned().map(({ symbol, book }) => ({ labels: { symbol }, value: book.restingOrders })),
  );
  metrics.engineBookLevels.add(() =>
    owned().flatMap(({ symbol, book }) => [
      { labels: { symbol, side: 'bid' }, value: book.levelCount(BookSide.BUY) },
      { labels: { symbol, side: 'ask' }, value: book.levelCount(BookSide.SELL) },
    ]),
  );
}
