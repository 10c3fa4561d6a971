import ConsumerGroup from 'kafkajs/src/consumer/consumerGroup';

let installed = false;

/**
 * kafkajs 2.2.4 runs a fetch loop per broker of the cluster for every consumer, and a loop whose
 * broker serves none of the consumer's partitions sleeps `maxWaitTime` and looks again, for as long
 * as the consumer lives. With partitions spread over three brokers most consumers of the cluster
 * own partitions on one or two, so a third of the loops or more spun: at the 10 ms wait the
 * benchmark and the mock want, about a hundred empty rounds a second each, 15 % of a core for the
 * eight processes at rest.
 *
 * Here the loops are made only for the brokers that serve an assigned partition (its leader, or
 * the preferred read replica kafkajs fetches from), and one when nothing is assigned. kafkajs's fetch
 * manager already asks for this list again before every fetch and rebuilds its loops when it
 * changed (a leader moved), and after every rebalance. Idempotent; every consumer of the process
 * shares the patched class.
 */
export function fetchOnlyFromServingBrokers(): void {
  if (installed) return;
  installed = true;
  const everyBroker = ConsumerGroup.prototype.getNodeIds;
  ConsumerGroup.prototype.getNodeIds = function (this: ConsumerGroup) {
    const all = everyBroker.call(this);
    const serving = new Set<string>();
    try {
      for (const { topic, partitions } of this.subscriptionState.assigned())
        for (const nodeId of Object.keys(this.findReadReplicaForPartitions(topic, partitions)))
          serving.add(nodeId);
    } catch {
      // Metadata not loaded yet: every broker, as kafkajs does; the next fetch asks again.
      return all;
    }
    const used = all.filter((nodeId) => serving.has(String(nodeId)));
    return used.length > 0 ? used : all.slice(0, 1);
  };
}
