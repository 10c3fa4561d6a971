export * from './funding.module';
export * from './settlement/funding.stage';
