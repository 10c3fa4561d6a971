import { Module } from '@nestjs/common';
import { InfrastructureModule } from '@perp/infrastructure';
import { bootstrap } from '@perp/runtime';
import { MatchingEngineModule } from './matching-engine.module';

void bootstrap('matching-engine', (config) => {
  @Module({ imports: [InfrastructureModule.forRoot(config), MatchingEngineModule] })
  class MatchingEngineApp {}
  return MatchingEngineApp;
});
