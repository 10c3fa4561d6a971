import { Module } from '@nestjs/common';
import { bootstrap, RuntimeModule } from '@perp/runtime';
import { RiskModule } from './risk.module';

void bootstrap('risk', (config) => {
  @Module({ imports: [RuntimeModule.forRoot(config), RiskModule] })
  class RiskApp {}
  return RiskApp;
});
