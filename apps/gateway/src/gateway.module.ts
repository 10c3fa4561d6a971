import { Module } from '@nestjs/common';
import { MarketDataModule } from '@perp/market-data';
import { ApiAccessModule } from './access';
import { AdminMarketsController } from './admin/admin-markets.controller';
import { AdminTokenGuard } from './admin/admin-token.guard';
import { FapiGeneralController } from './fapi/fapi-general.controller';
import { FapiTickerController } from './fapi/fapi-ticker.controller';
import { NativeMarketsController } from './native/markets.controller';

/** The HTTP edge: FAPI and native API. */
@Module({
  imports: [MarketDataModule, ApiAccessModule.forRoot()],
  controllers: [FapiGeneralController, FapiTickerController, NativeMarketsController, AdminMarketsController],
  providers: [AdminTokenGuard],
})
export class GatewayModule {}
