// `node dist/apps/exchange/src/ops/provision-topics.js`: creates the Kafka topics with the partition
// counts of libs/contracts, grows smaller ones, and exits; idempotent (the Helm chart's hook Job).
import { provisionTopics } from '@perp/infrastructure';
import { runOp } from './run-op';

runOp('topics', async (config, logger) => {
  const found = await provisionTopics(config, { logger });
  for (const [topic, partitions] of Object.entries(found)) logger.log(`${topic}: ${partitions} partitions`);
});
