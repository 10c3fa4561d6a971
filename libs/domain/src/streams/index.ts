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
  decodePlace,
  encodePlace,
  missedRange,
  placeAfter,
  placeBefore,
  type UserStreamPlace,
} from './user-stream-place';
export {
  parseNativeChannel,
  type NativeChannel,
  type NativePrivateKind,
  type NativePublicKind,
} from './native-channels';
