export * from './config/app-config';
export * from './config/runtime.module';
export * from './health/readiness';
export * from './metrics/metrics';
export * from './metrics/sampled-gauge';
export * from './http/error-envelope.filter';
export * from './http/create-http-app';
export * from './http/bootstrap';
