export * from './bus';
export { KeyPartitioner, murmur2, partitionOf } from './partitioner';
export { silentLogger } from './logger';
export { PartitionKeys } from './partition-keys';
export { Joining, joinTogether } from './joining';
export { type ConsumerFailing, type ConsumerLag, type ConsumerObserver, ObservedBus } from './observed-bus';
export { MemoryBus, type MemoryBusOptions } from './memory/memory-bus';
export type { FsyncPolicy, JournalOptions } from './memory/journal';
export { KafkaBus, type KafkaBusOptions, type KafkaConsumerTuning } from './kafka/kafka-bus';
export { BusModule, type BusModuleOptions, createBus } from './bus.module';
export {
  ensureTopics,
  provisionTopics,
  PROVISIONING_RETRY,
  type TopicAdmin,
  type TopicProvisioningOptions,
} from './kafka/topic-provisioning';
export type { TopicConfigs } from './kafka/topic-configs';
