import { type DynamicModule, Global, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { type Chain, MarketRegistry } from '@perp/domain';
import { loadChain } from '@perp/contracts';
import { type AppConfig, loadAppConfig } from './app-config';
import { HealthController } from '../health/health.controller';
import { Readiness } from '../health/readiness';
import { ErrorEnvelopeFilter } from '../http/error-envelope.filter';
import { HttpFastLanes } from '../http/fast-lanes';
import { Metrics } from '../metrics/metrics';
import { MetricsController } from '../metrics/metrics.controller';

export const APP_CONFIG = Symbol('APP_CONFIG');
export const CHAIN = Symbol('CHAIN');

/**
 * What every process shares: validated configuration, the deployment's chain, health probes,
 * Prometheus metrics and the error envelopes. Imported once by each app's root module.
 */
@Global()
@Module({})
export class RuntimeModule {
  static forRoot(config: AppConfig = loadAppConfig()): DynamicModule {
    const chain: Chain = loadChain(config.deployDir, config.CHAIN);
    return {
      module: RuntimeModule,
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: CHAIN, useValue: chain },
        Readiness,
        { provide: Metrics, useValue: new Metrics() },
        { provide: HttpFastLanes, useValue: new HttpFastLanes() },
        { provide: MarketRegistry, useValue: new MarketRegistry(chain.markets) },
        { provide: APP_FILTER, useClass: ErrorEnvelopeFilter },
      ],
      exports: [APP_CONFIG, CHAIN, Readiness, Metrics, MarketRegistry, HttpFastLanes],
    };
  }
}
