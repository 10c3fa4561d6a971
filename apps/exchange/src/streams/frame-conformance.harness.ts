import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import type { StreamClient } from './stream-client.harness';

/**
 * Checks every frame a test's sockets receive against the message schemas of the WebSocket AsyncAPI
 * document: a frame conforms when one schema parses it to itself (no field missing, none extra).
 */
export class FrameConformance {
  readonly nonconforming: unknown[] = [];

  constructor(private readonly schemas: readonly z.ZodType[]) {}

  conforms(frame: unknown): boolean {
    if (typeof frame === 'object' && frame !== null && 'stream' in frame && 'data' in frame)
      return this.conforms((frame as { data: unknown }).data); // combined framing
    if (Array.isArray(frame)) return frame.every((f) => this.conforms(f)); // the !…@arr streams
    return this.schemas.some((s) => {
      const r = s.safeParse(frame);
      return r.success && isDeepStrictEqual(r.data, frame);
    });
  }

  watch(c: StreamClient): StreamClient {
    c.ws.on('message', (raw) => {
      const frame: unknown = JSON.parse(raw.toString());
      if (!this.conforms(frame)) this.nonconforming.push(frame);
    });
    return c;
  }
}
