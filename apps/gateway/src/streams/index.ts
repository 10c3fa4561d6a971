export { StreamsModule } from './streams.module';
export { StreamHub } from './stream-hub';
export { StreamServer, DEFAULT_STREAM_LIMITS, type StreamLimits } from './stream-server';
export { CLOSE } from './stream-connection';
