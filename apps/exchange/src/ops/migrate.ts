// `node dist/apps/exchange/src/ops/migrate.js`: applies pending database migrations to DATABASE_URL
// and exits (the Helm chart's pre-install/pre-upgrade Job; helm/perp-exchange/README.md).
import { migrateDatabase } from '@perp/infrastructure';
import { runOp } from './run-op';

runOp('migrations', async (config, logger) => {
  const applied = await migrateDatabase(config);
  logger.log(`migrations applied: ${applied.length ? applied.join(', ') : 'none (schema current)'}`);
});
