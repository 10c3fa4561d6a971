export * from './trigger-orders';
export * from './trigger-book';
