import { Module } from '@nestjs/common';
import { InfrastructureModule } from '@perp/infrastructure';
import { bootstrap } from '@perp/runtime';
import { checkAuthSecrets } from './access/auth-secrets';
import { GatewayModule } from './gateway.module';

void bootstrap('gateway', (config) => {
  checkAuthSecrets(config);
  // Ready means able to answer: the reply listener is joined before /readyz says so.
  @Module({ imports: [InfrastructureModule.forRoot(config, { eagerReplyListener: true }), GatewayModule] })
  class GatewayApp {}
  return GatewayApp;
});
