import { Kafka } from 'kafkajs';

type Client = { connect(): Promise<void>; disconnect(): Promise<void> };
type Maker = (this: Kafka, ...args: unknown[]) => Client;
const KINDS = ['producer', 'consumer', 'admin'] as const;

export interface KafkaClientTracker {
  /** Where each client that connected (or is connecting) and has not disconnected since was made. */
  open(): string[];
  /** Clients made from now on are not tracked. */
  stop(): void;
}

/** Tracks the kafkajs producers, consumers and admins made in this module registry from now on. */
export function trackKafkaClients(): KafkaClientTracker {
  const open = new Map<Client, string>();
  const proto = Kafka.prototype as unknown as Record<(typeof KINDS)[number], Maker>;
  const originals = KINDS.map((kind) => [kind, proto[kind]] as const);
  for (const [kind, make] of originals) {
    proto[kind] = function (this: Kafka, ...args: unknown[]) {
      const client = make.apply(this, args);
      const made = new Error(`a kafkajs ${kind} made`).stack ?? kind;
      const connect = client.connect.bind(client);
      const disconnect = client.disconnect.bind(client);
      client.connect = () => {
        open.set(client, made);
        return connect();
      };
      client.disconnect = async () => {
        try {
          await disconnect();
        } finally {
          open.delete(client);
        }
      };
      return client;
    };
  }
  return {
    open: () => [...open.values()],
    stop: () => {
      for (const [kind, make] of originals) proto[kind] = make;
    },
  };
}

/**
 * For a spec file that runs kafkajs clients in Jest's own process: its last hook fails, naming where
 * each was made, when a client was connected (or was connecting) and never disconnected. Such a
 * client goes on retrying against a mock broker that is gone, for minutes, and its timers keep Jest
 * from exiting after every suite has passed. Call it at the top of the file.
 */
export function failOnOpenKafkaClients(): void {
  let tracker: KafkaClientTracker | undefined;
  beforeAll(() => {
    tracker = trackKafkaClients();
  });
  afterAll(() => {
    tracker?.stop();
    const left = tracker?.open() ?? [];
    if (left.length)
      throw new Error(
        `${left.length} kafkajs client(s) connected and never disconnected:\n\n${left.join('\n\n')}`,
      );
  });
}
