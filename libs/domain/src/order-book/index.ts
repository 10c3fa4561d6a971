export * from './types';
export * from './events';
export type { BookLevelChange, BookLevelChangeLog } from './level-changes';
export * from './order-book';
export * from './order-book-api';
