export * from './infrastructure.module';
export * from './markets/markets-projection';
