import { Module } from '@nestjs/common';
import { InfrastructureModule } from '@perp/infrastructure';
import { bootstrap } from '@perp/runtime';
import { MarketDataProjectionsModule } from './market-data-projections.module';
import { MarketDataModule } from './market-data.module';

void bootstrap('market-data', (config) => {
  @Module({ imports: [InfrastructureModule.forRoot(config), MarketDataModule, MarketDataProjectionsModule] })
  class MarketDataApp {}
  return MarketDataApp;
});
