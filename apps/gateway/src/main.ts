import { Module } from '@nestjs/common';
import { bootstrap, RuntimeModule } from '@perp/runtime';
import { GatewayModule } from './gateway.module';

void bootstrap('gateway', (config) => {
  @Module({ imports: [RuntimeModule.forRoot(config), GatewayModule] })
  class GatewayApp {}
  return GatewayApp;
});
