// Preloaded into the kubelet by the benchmarks (`node --require bench/lib/cri-call-counter.cjs`) to
// count the CRI calls it makes without changing the kubelet: it wraps grpc-js's Client methods
// that @kubelet-ts/cri-client uses (makeUnaryRequest, makeServerStreamRequest) and writes the
// cumulative counts per gRPC method, with the time, to $KUBELET_TS_BENCH_CRI_COUNTS/counts.json when
// the benchmark asks (it writes a `request` file into that directory, watched with inotify) and at
// exit. It also keeps the first RunPodSandbox and CreateContainer requests, so a benchmark can check
// that its direct-CRI baseline sends the same shape. Cost: one object update per call and nothing
// in between (writing the counts every second cost ~3 % of the kubelet's steady CPU).
// With each answer go the process's active resources by type (timers, sockets, watchers: what a leak
// grows) and, when the request ends in `:gc`, the heap used after a full collection (the soak's samples).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const dir = process.env.KUBELET_TS_BENCH_CRI_COUNTS;
if (dir) {
  const out = path.join(dir, 'counts.json');
  // The grpc-js instance that @kubelet-ts/cri-client resolves (ESM imports of a CJS package share this cache entry).
  const criClientDir = path.resolve(__dirname, '../../packages/cri-client');
  const grpc = require(require.resolve('@grpc/grpc-js', { paths: [criClientDir] }));
  const counts = Object.create(null);
  const samples = Object.create(null);
  const SAMPLED = new Set(['/runtime.v1.RuntimeService/RunPodSandbox', '/runtime.v1.RuntimeService/CreateContainer']);
  const record = (method, request) => {
    counts[method] = (counts[method] || 0) + 1;
    if (SAMPLED.has(method) && samples[method] === undefined) samples[method] = request;
  };
  const proto = grpc.Client.prototype;
  const unary = proto.makeUnaryRequest;
  proto.makeUnaryRequest = function countedUnary(method, serialize, deserialize, argument, ...rest) {
    record(method, argument);
    return unary.call(this, method, serialize, deserialize, argument, ...rest);
  };
  const serverStream = proto.makeServerStreamRequest;
  proto.makeServerStreamRequest = function countedServerStream(method, serialize, deserialize, argument, ...rest) {
    record(method, argument);
    return serverStream.call(this, method, serialize, deserialize, argument, ...rest);
  };
  const activeResources = () => {
    const byType = Object.create(null);
    for (const type of process.getActiveResourcesInfo()) byType[type] = (byType[type] || 0) + 1;
    return byType;
  };
  let collect;
  const heapAfterGc = () => {
    if (collect === undefined) {
      require('node:v8').setFlagsFromString('--expose-gc');
      collect = require('node:vm').runInNewContext('gc');
    }
    collect();
    return process.memoryUsage().heapUsed;
  };
  const write = (request = '') => {
    try {
      const tmp = `${out}.tmp`;
      const heapUsedAfterGc = request.endsWith(':gc') ? heapAfterGc() : undefined;
      fs.writeFileSync(tmp, JSON.stringify({ time: Date.now(), request, counts, samples, resources: activeResources(), heapUsedAfterGc }));
      fs.renameSync(tmp, out);
    } catch {
      // the benchmark's directory is gone: nothing to report to
    }
  };
  const answer = () => {
    let request = '';
    try {
      request = fs.readFileSync(path.join(dir, 'request'), 'utf8');
    } catch {
      return;
    }
    write(request);
  };
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.watch(dir, (_event, name) => {
      if (name === 'request') answer();
    }).unref();
  } catch {
    // no directory to watch: the counts are written at exit only
  }
  process.on('exit', () => write());
}
