import { Module } from '@nestjs/common';
import { MarketDataModule } from '@perp/market-data';
import { FapiGeneralController } from './fapi/fapi-general.controller';
import { FapiTickerController } from './fapi/fapi-ticker.controller';
import { NativeMarketsController } from './native/markets.controller';

/** The HTTP edge: FAPI and native API. */
@Module({
  imports: [MarketDataModule],
  controllers: [FapiGeneralController, FapiTickerController, NativeMarketsController],
})
export class GatewayModule {}
