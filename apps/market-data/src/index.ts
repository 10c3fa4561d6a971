export * from './market-data.module';
export * from './market-data-projections.module';
export * from './open-interest/open-interest';
export * from './open-interest/open-interest.projector';
export * from './book-top/book-top';
export * from './book-top/book-top.projector';
export * from './prices/simulated-price-feed';
