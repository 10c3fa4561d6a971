import { type DynamicModule, Module } from '@nestjs/common';
import { FundingModule } from '@perp/funding';
import { GatewayModule } from '@perp/gateway';
import { KeeperModule } from '@perp/keeper';
import { MarketDataModule, MarketDataProjectionsModule } from '@perp/market-data';
import { MatchingEngineModule } from '@perp/matching-engine';
import { RiskModule } from '@perp/risk';
import { InfrastructureModule, type InfrastructureOptions } from '@perp/infrastructure';
import type { AppConfig } from '@perp/runtime';

/** Every app's module in one process: the embedded exchange. */
@Module({})
export class ExchangeModule {
  static forRoot(config: AppConfig, options: InfrastructureOptions = {}): DynamicModule {
    return {
      module: ExchangeModule,
      imports: [
        InfrastructureModule.forRoot(config, options),
        GatewayModule,
        MatchingEngineModule,
        RiskModule,
        FundingModule,
        KeeperModule,
        MarketDataModule,
        MarketDataProjectionsModule,
      ],
    };
  }
}
