import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { parseTrustedProxies } from '@perp/auth';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { APP_CONFIG, type AppConfig } from '@perp/runtime';
import { SIGNED_REQUEST_ADMISSION } from '../access/signed/admission';
import { FapiWeightGuard } from './fapi-weight.guard';
import { OrderCountAdmission } from './order-count.admission';
import { RATE_LIMIT_CEILINGS } from './rate-limit-http';
import { ceilingsOf } from './rate-limit-rules';
import { RATE_LIMIT_TRUSTED_PROXIES, RequestWeights } from './request-weights';
import { WindowLeases } from './window-leases';
import { WindowLimiter } from './window-limiter';

/**
 * FAPI rate limits (see README.md here): request weight per client IP on every FAPI route (a
 * global guard that ignores other paths) and order counts per account on endpoints that declare
 * them (`@Signed({ orders })`, checked inside SignedRequestGuard). Needs APP_CONFIG and HOT_STORE;
 * global, so SignedRequestGuard finds the order-count check in every module.
 */
@Global()
@Module({
  providers: [
    { provide: RATE_LIMIT_CEILINGS, inject: [APP_CONFIG], useFactory: (c: AppConfig) => ceilingsOf(c) },
    {
      provide: RATE_LIMIT_TRUSTED_PROXIES,
      inject: [APP_CONFIG],
      useFactory: (c: AppConfig) => parseTrustedProxies(c.TRUSTED_PROXIES),
    },
    { provide: WindowLimiter, inject: [HOT_STORE], useFactory: (hot: HotStore) => new WindowLimiter(hot) },
    { provide: WindowLeases, inject: [HOT_STORE], useFactory: (hot: HotStore) => new WindowLeases(hot) },
    RequestWeights,
    { provide: APP_GUARD, useClass: FapiWeightGuard },
    OrderCountAdmission,
    { provide: SIGNED_REQUEST_ADMISSION, useExisting: OrderCountAdmission },
  ],
  exports: [SIGNED_REQUEST_ADMISSION, RATE_LIMIT_CEILINGS, WindowLimiter, RequestWeights],
})
export class RateLimitsModule {}
