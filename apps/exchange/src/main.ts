import { bootstrap } from '@perp/runtime';
import { checkAuthSecrets } from '@perp/gateway';
import { embeddedAdminToken } from './admin-token';
import { ExchangeModule } from './exchange.module';

void bootstrap('exchange', (config) => {
  checkAuthSecrets(config);
  if (!config.ADMIN_TOKEN) {
    config.ADMIN_TOKEN = embeddedAdminToken(config.dataDir);
    process.stdout.write(
      `admin token (from ${config.dataDir}/admin-token; set ADMIN_TOKEN to choose one): ${config.ADMIN_TOKEN}\n`,
    );
  }
  return ExchangeModule.forRoot(config);
});
