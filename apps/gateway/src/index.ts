export * from './gateway.module';
export * from './streams';
export { checkAuthSecrets } from './access/auth-secrets';
