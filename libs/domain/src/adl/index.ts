export * from './adl-score';
export * from './adl-ranking';
