export { StreamsModule } from './streams.module';
export { StreamHub } from './stream-hub';
export { StreamServer, DEFAULT_STREAM_LIMITS, type StreamLimits } from './stream-server';
export { CLOSE } from './stream-connection';
export {
  MARKET_EVENTS,
  USER_EVENTS,
  CombinedFrame,
  StreamError,
  StreamResult,
} from './asyncapi/binance-messages';
export { NATIVE_SERVER_FRAMES } from './asyncapi/native-messages';
export { buildWsAsyncApi } from './asyncapi/ws-asyncapi';
