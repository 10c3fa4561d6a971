import { Module } from '@nestjs/common';
import { bootstrap, RuntimeModule } from '@perp/runtime';
import { MarketDataModule } from './market-data.module';

void bootstrap('market-data', (config) => {
  @Module({ imports: [RuntimeModule.forRoot(config), MarketDataModule] })
  class MarketDataApp {}
  return MarketDataApp;
});
