// kafkajs's broker connection (one per broker per client); not in its typings. Only what
// fetch-coalescing.ts uses: the Fetch request and its decoded response.
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
