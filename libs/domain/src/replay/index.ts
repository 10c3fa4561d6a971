export * from './high-water-marks';
