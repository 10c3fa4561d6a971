import { Module } from '@nestjs/common';
import { bootstrap, RuntimeModule } from '@perp/runtime';
import { FundingModule } from './funding.module';

void bootstrap('funding', (config) => {
  @Module({ imports: [RuntimeModule.forRoot(config), FundingModule] })
  class FundingApp {}
  return FundingApp;
});
