import { Module } from '@nestjs/common';
import { bootstrap, RuntimeModule } from '@perp/runtime';
import { KeeperModule } from './keeper.module';

void bootstrap('keeper', (config) => {
  @Module({ imports: [RuntimeModule.forRoot(config), KeeperModule] })
  class KeeperApp {}
  return KeeperApp;
});
