// kafkajs's retrier (exponential backoff with jitter, bounded retries); not in its typings.
declare module 'kafkajs/src/retry' {
  import type { RetryOptions } from 'kafkajs';
  type Retrier = <T>(
    attempt: (bail: (error: Error) => void, retryCount: number, retryTime: number) => Promise<T>,
  ) => Promise<T>;
  function createRetry(options?: RetryOptions): Retrier;
  export = createRetry;
}
