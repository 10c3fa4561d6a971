import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Readiness } from './readiness';

@Controller()
export class HealthController {
  constructor(private readonly readiness: Readiness) {}

  /** Liveness: the event loop answers. */
  @Get('healthz')
  live() {
    return { status: 'ok' };
  }

  /** Readiness: every registered check passes; 503 with the failing ones otherwise. */
  @Get('readyz')
  async ready(@Res() reply: FastifyReply) {
    const report = await this.readiness.report();
    await reply
      .status(report.ready ? 200 : 503)
      .send({ status: report.ready ? 'ready' : 'not ready', ...report });
  }
}
