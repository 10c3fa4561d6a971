import type { Logger } from '@nestjs/common';
import type { BusMessage } from '@perp/bus';
import { MessageValidationError, parseMessage, type TopicId, type TopicMessage } from '@perp/contracts';

/**
 * The messages of a turn that match their topic's schema, each with its place; a malformed one is
 * logged and skipped rather than blocking its partition.
 */
export function validMessages<T extends TopicId>(
  topic: T,
  messages: readonly BusMessage[],
  logger: Pick<Logger, 'warn'>,
): { m: BusMessage; value: TopicMessage<T> }[] {
  const out: { m: BusMessage; value: TopicMessage<T> }[] = [];
  for (const m of messages) {
    try {
      out.push({ m, value: parseMessage(topic, m.value, m.inProcess) });
    } catch (e) {
      if (!(e instanceof MessageValidationError)) throw e;
      logger.warn(`skipped malformed ${m.topic}/${m.partition}@${m.offset}: ${e.message}`);
    }
  }
  return out;
}
