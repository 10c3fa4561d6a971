import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Metrics } from './metrics';

@Controller()
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  /** Prometheus text exposition of this application's series and the process's. */
  @Get('metrics')
  async scrape(@Res() reply: FastifyReply) {
    const text = await this.metrics.scrape();
    await reply.header('content-type', this.metrics.contentType).send(text);
  }
}
