import { Module } from '@nestjs/common';
import { bootstrap, RuntimeModule } from '@perp/runtime';
import { MatchingEngineModule } from './matching-engine.module';

void bootstrap('matching-engine', (config) => {
  @Module({ imports: [RuntimeModule.forRoot(config), MatchingEngineModule] })
  class MatchingEngineApp {}
  return MatchingEngineApp;
});
