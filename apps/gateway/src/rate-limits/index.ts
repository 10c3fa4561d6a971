export * from './rate-limits.module';
export * from './rate-limit-rules';
export * from './rate-limit-http';
export * from './window-limiter';
export * from './weight.decorator';
export * from './fapi-weight.guard';
export * from './order-count.admission';
export * from './request-weights';
