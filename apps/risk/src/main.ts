import { Module } from '@nestjs/common';
import { InfrastructureModule } from '@perp/infrastructure';
import { bootstrap } from '@perp/runtime';
import { RiskModule } from './risk.module';

void bootstrap('risk', (config) => {
  @Module({ imports: [InfrastructureModule.forRoot(config), RiskModule] })
  class RiskApp {}
  return RiskApp;
});
