export * from './types';
export * from './events';
export * from './order-book';
export * from './order-book-api';
