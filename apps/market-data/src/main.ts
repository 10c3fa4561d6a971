import { Module } from '@nestjs/common';
import { InfrastructureModule } from '@perp/infrastructure';
import { bootstrap } from '@perp/runtime';
import { MarketDataModule } from './market-data.module';

void bootstrap('market-data', (config) => {
  @Module({ imports: [InfrastructureModule.forRoot(config), MarketDataModule] })
  class MarketDataApp {}
  return MarketDataApp;
});
