export * from './bankruptcy';
export * from './liquidation-charges';
export * from './liquidation-risk';
