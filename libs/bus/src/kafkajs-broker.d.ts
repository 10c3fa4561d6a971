// kafkajs internals not in its typings. The broker connection (one per broker per client): only
// what fetch-coalescing.ts uses, the Fetch request and its decoded response.
declare module 'kafkajs/src/broker' {
  namespace Broker {
    interface FetchPartitionRequest {
      partition: number;
      fetchOffset: string;
      maxBytes: number;
    }
    interface FetchRequest {
      maxWaitTime?: number;
      maxBytes?: number;
      topics: { topic: string; partitions: FetchPartitionRequest[] }[];
      [option: string]: unknown;
    }
    interface FetchedMessage {
      offset: string;
      key?: Buffer | null;
      value?: Buffer | null;
      [field: string]: unknown;
    }
    interface FetchPartitionResponse {
      partition: number;
      errorCode: number;
      highWatermark: string;
      messages: FetchedMessage[];
      [field: string]: unknown;
    }
    interface FetchResponse {
      responses: { topicName: string; partitions: FetchPartitionResponse[] }[];
      [field: string]: unknown;
    }
  }
  class Broker {
    fetch(request: Broker.FetchRequest): Promise<Broker.FetchResponse>;
  }
  export = Broker;
}

// A broker connection's request queue: only what request-queue-idle.ts uses.
declare module 'kafkajs/src/network/requestQueue' {
  class RequestQueue {
    pending: unknown[];
    throttledUntil: number;
    throttleCheckTimeoutId: NodeJS.Timeout | null;
    scheduleCheckPendingRequests(): void;
  }
  export = RequestQueue;
}

// A consumer's group state: only what leader-fetchers.ts uses.
declare module 'kafkajs/src/consumer/consumerGroup' {
  class ConsumerGroup {
    subscriptionState: { assigned(): { topic: string; partitions: number[] }[] };
    /** The brokers kafkajs runs a fetch loop for (every broker of the cluster). */
    getNodeIds(): string[];
    /** Which broker serves each of these partitions (the leader, or a preferred read replica). */
    findReadReplicaForPartitions(topic: string, partitions: number[]): Record<string, number[]>;
    fetch(nodeId: string): Promise<unknown[]>;
  }
  export = ConsumerGroup;
}
