/**
 * Preloaded (`node -r`) into a benchmark's exchange by `BENCH_ALLOC_PROF=DIR`: V8's sampling heap
 * profiler with the objects scavenges and full collections reclaim counted too, so the profile says
 * what makes the garbage by allocation site (node's `--heap-prof` keeps only what is still held).
 * Written to `DIR/alloc.<pid>.heapprofile` when the process exits (Chrome DevTools opens it).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';

// Inherited from the benchmark's environment, as the servers' other settings are.
const dir = process.env.BENCH_ALLOC_PROF;
// The main thread only: a preload runs in worker threads too (the embedded database's).
if (dir && isMainThread) {
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.enable');
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 64 * 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  // A session of this thread answers synchronously, so the profile is written before the process
  // ends: at exit, or at SIGTERM, which Nest's shutdown hooks end by raising again (no exit event).
  let written = false;
  const write = () => {
    if (written) return;
    written = true;
    session.post('HeapProfiler.getSamplingProfile', (err, result) => {
      if (!err) writeFileSync(join(dir, `alloc.${process.pid}.heapprofile`), JSON.stringify(result.profile));
    });
  };
  process.once('exit', write);
  process.prependOnceListener('SIGTERM', () => {
    write();
    // Nobody else listening: SIGTERM's default, ending the process.
    if (process.listenerCount('SIGTERM') === 0) process.exit(0);
  });
}
