import { Module } from '@nestjs/common';
import { InfrastructureModule } from '@perp/infrastructure';
import { bootstrap } from '@perp/runtime';
import { GatewayModule } from './gateway.module';

void bootstrap('gateway', (config) => {
  @Module({ imports: [InfrastructureModule.forRoot(config), GatewayModule] })
  class GatewayApp {}
  return GatewayApp;
});
