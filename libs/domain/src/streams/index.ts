export {
  isBookStream,
  servedOn,
  parseStreamName,
  streamKey,
  type DepthSpeed,
  type MarketStream,
  type StreamKind,
} from './stream-names';
export { DeltaWindow, LocalBook, type BookDelta, type MergedDelta, type SyncStep } from './diff-depth';
export {
  parseNativeChannel,
  type NativeChannel,
  type NativePrivateKind,
  type NativePublicKind,
} from './native-channels';
