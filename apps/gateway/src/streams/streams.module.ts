import { Module } from '@nestjs/common';
import { FapiMarketModule } from '../fapi/market/fapi-market.module';
import { MarketFeed } from './market-feed';
import { NativeChannels } from './native-session';
import { StreamFeeds } from './stream-feeds';
import { UserFeed } from './user-feed';
import { StreamHub } from './stream-hub';
import { StreamServer } from './stream-server';

/**
 * Binance-compatible WebSocket streams and the native channels (`/api/v1/ws`) on the gateway's HTTP
 * port (see README.md): the server,
 * the in-memory fan-out and the feeds that read the log with this replica's own consumer groups.
 */
@Module({
  imports: [FapiMarketModule],
  providers: [StreamHub, StreamServer, NativeChannels, StreamFeeds, MarketFeed, UserFeed],
  exports: [StreamServer, StreamHub],
})
export class StreamsModule {}
