export * from './api-access.module';
export * from './access-options';
export * from './auth-secrets';
export * from './signed/signed';
export * from './signed/fapi-params';
export * from './signed/signed-request.guard';
export * from './signed/api-key-cache';
export * from './signed/last-used';
