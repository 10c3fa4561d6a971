import { type Admin, ConfigResourceTypes, ConfigSource, KafkaJSBrokerNotFound } from 'kafkajs';
import type { BusLogger } from '../bus';
import { errorText } from '../logger';
import { isRetriable } from './kafka-client';

/** Topic name -> the topic-level settings it must have (e.g. `cleanup.policy: compact`). */
export type TopicConfigs = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** The admin calls that read and change topic settings. */
export type TopicConfigAdmin = Pick<Admin, 'describeConfigs' | 'alterConfigs'>;

/**
 * Makes each topic's settings include `configs`. Kafka's AlterConfigs (the API kafkajs speaks)
 * replaces a topic's whole set of overrides, so the topic's other overrides (an operator's
 * `retention.ms`) are read first and sent back with ours. With `alter` false, or where the broker
 * refuses for good, a difference is logged at WARN (it is a deployment problem an operator must see: a
 * markets topic that is not compacted loses market changes to retention) and the process goes on.
 */
export async function reconcileTopicConfigs(
  admin: TopicConfigAdmin,
  configs: TopicConfigs,
  options: { alter: boolean; logger: BusLogger },
): Promise<void> {
  const topics = Object.keys(configs).filter((t) => Object.keys(configs[t]!).length);
  if (!topics.length) return;
  const { logger } = options;
  let described;
  try {
    described = await admin.describeConfigs({
      resources: topics.map((name) => ({ type: ConfigResourceTypes.TOPIC, name })),
      includeSynonyms: false,
    });
  } catch (e) {
    // No controller in the metadata: the librdkafka mock, which has no admin API and no settings.
    if (e instanceof KafkaJSBrokerNotFound) {
      logger.debug?.(`kafka: topic settings not checked (${errorText(e)})`);
      return;
    }
    // A topic created a moment ago may not be known to the broker that answers yet: try again.
    if (isRetriable(e)) throw e;
    logger.warn(
      `kafka: cannot read the settings of ${topics.join(', ')} (${errorText(e)}); ${wantedText(configs, topics)}`,
    );
    return;
  }
  for (const resource of described.resources) {
    const topic = resource.resourceName;
    const wanted = configs[topic];
    if (!wanted) continue;
    if (resource.errorCode) {
      logger.warn(
        `kafka: cannot read the settings of ${topic} (${resource.errorMessage || `error ${resource.errorCode}`}); ${wantedText(configs, [topic])}`,
      );
      continue;
    }
    const current = new Map(resource.configEntries.map((e) => [e.configName, e]));
    const differs: Record<string, [string | undefined, string]> = {};
    for (const [name, value] of Object.entries(wanted))
      if (current.get(name)?.configValue !== value) differs[name] = [current.get(name)?.configValue, value];
    if (!Object.keys(differs).length) continue;
    const text = Object.entries(differs)
      .map(([name, [has, want]]) => `${name}=${has ?? '(unset)'}, wants ${want}`)
      .join('; ');
    if (!options.alter) {
      logger.warn(`kafka: topic ${topic} has ${text} (libs/contracts); provision the topics to fix it`);
      continue;
    }
    // The topic's own overrides stay; ours replace theirs of the same name.
    const overrides = resource.configEntries
      .filter(
        (e) => e.configSource === ConfigSource.TOPIC_CONFIG && !e.isSensitive && !(e.configName in wanted),
      )
      .map((e) => ({ name: e.configName, value: e.configValue }));
    try {
      await admin.alterConfigs({
        validateOnly: false,
        resources: [
          {
            type: ConfigResourceTypes.TOPIC,
            name: topic,
            configEntries: [
              ...overrides,
              ...Object.entries(wanted).map(([name, value]) => ({ name, value })),
            ],
          },
        ],
      });
      logger.log(`kafka: topic ${topic} had ${text}: altered`);
    } catch (e) {
      if (isRetriable(e)) throw e;
      logger.warn(`kafka: topic ${topic} has ${text} and altering it was refused (${errorText(e)})`);
    }
  }
}

function wantedText(configs: TopicConfigs, topics: string[]): string {
  return `libs/contracts wants ${topics
    .map(
      (t) =>
        `${t}: ${Object.entries(configs[t]!)
          .map(([k, v]) => `${k}=${v}`)
          .join(', ')}`,
    )
    .join('; ')}`;
}
