import { Module } from '@nestjs/common';
import { InfrastructureModule } from '@perp/infrastructure';
import { bootstrap } from '@perp/runtime';
import { KeeperModule } from './keeper.module';

void bootstrap('keeper', (config) => {
  @Module({ imports: [InfrastructureModule.forRoot(config), KeeperModule] })
  class KeeperApp {}
  return KeeperApp;
});
