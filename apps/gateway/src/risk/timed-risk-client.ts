import { Inject, Injectable } from '@nestjs/common';
import { Bus } from '@perp/bus';
import { APP_CONFIG, type AppConfig, Metrics } from '@perp/runtime';
import { RiskClient, type RiskCommandBody, type RiskOutcome } from './risk-client';

/**
 * The RiskClient every gateway module gets: times each command from its send to the answer (for an
 * order, through risk, the engine and settlement), by command type and outcome.
 */
@Injectable()
export class TimedRiskClient extends RiskClient {
  constructor(
    bus: Bus,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly metrics: Metrics,
  ) {
    super(bus, config);
  }

  override async send(body: RiskCommandBody, time?: number): Promise<RiskOutcome> {
    const start = performance.now();
    let outcome = 'failed';
    try {
      const answer = await super.send(body, time);
      outcome = answer.ok ? 'ok' : 'unavailable' in answer ? 'unanswered' : 'refused';
      return answer;
    } finally {
      this.metrics.commandTally.observe({ command: body.type, outcome }, (performance.now() - start) / 1000);
    }
  }
}
