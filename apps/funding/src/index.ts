export * from './funding.module';
