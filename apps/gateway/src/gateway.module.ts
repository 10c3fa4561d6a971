import { Module } from '@nestjs/common';
import { TickersModule } from '@perp/infrastructure';
import { ApiAccessModule } from './access';
import { AdminAccountsController } from './admin/admin-accounts.controller';
import { AdminMarketsController } from './admin/admin-markets.controller';
import { AdminTokenGuard } from './admin/admin-token.guard';
import { FapiAccountModule } from './fapi/account/fapi-account.module';
import { FapiGeneralController } from './fapi/fapi-general.controller';
import { FapiMarketStatsModule } from './fapi/market-stats/market-stats.module';
import { FapiOrdersController } from './fapi/orders/fapi-orders.controller';
import { FapiTickerController } from './fapi/fapi-ticker.controller';
import { NativeMarketsController } from './native/markets.controller';
import { NativeOpenApiModule } from './native/openapi/native-openapi.module';
import { NativeTradingModule } from './native/trading/native-trading.module';
import { RiskClientModule } from './risk/risk-client.module';
import { RateLimitsModule } from './rate-limits';

/** The HTTP edge: FAPI and native API. */
@Module({
  imports: [
    TickersModule,
    ApiAccessModule.forRoot(),
    RateLimitsModule,
    RiskClientModule,
    FapiAccountModule,
    FapiMarketStatsModule,
    NativeTradingModule,
    NativeOpenApiModule,
  ],
  controllers: [
    FapiGeneralController,
    FapiTickerController,
    NativeMarketsController,
    AdminMarketsController,
    AdminAccountsController,
    FapiOrdersController,
  ],
  providers: [AdminTokenGuard],
})
export class GatewayModule {}
