import { Module } from '@nestjs/common';
import { InfrastructureModule } from '@perp/infrastructure';
import { bootstrap } from '@perp/runtime';
import { FundingModule } from './funding.module';

void bootstrap('funding', (config) => {
  @Module({ imports: [InfrastructureModule.forRoot(config), FundingModule] })
  class FundingApp {}
  return FundingApp;
});
