import { type DynamicModule, Module } from '@nestjs/common';
import { FundingModule } from '@perp/funding';
import { GatewayModule } from '@perp/gateway';
import { KeeperModule } from '@perp/keeper';
import { MarketDataModule } from '@perp/market-data';
import { MatchingEngineModule } from '@perp/matching-engine';
import { RiskModule } from '@perp/risk';
import { type AppConfig, RuntimeModule } from '@perp/runtime';

/** Every app's module in one process: the embedded exchange. */
@Module({})
export class ExchangeModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ExchangeModule,
      imports: [
        RuntimeModule.forRoot(config),
        GatewayModule,
        MatchingEngineModule,
        RiskModule,
        FundingModule,
        KeeperModule,
        MarketDataModule,
      ],
    };
  }
}
