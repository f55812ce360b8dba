// Runs the upstream kubelet (scripts/lib/upstream-kubelet.mjs) for a jest test, which cannot import
// ES modules itself: prints "ready" once it is healthy, stops and cleans up when stdin closes.
//   node upstream-kubelet-runner.mjs <state dir> <extra KubeletConfiguration as JSON>
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const { readEnvFile, startUpstreamKubelet } = await import(path.join(here, '../../../../scripts/lib/upstream-kubelet.mjs'));
const [dir, config = '{}'] = process.argv.slice(2);
const env = {
  ...readEnvFile(path.join(process.env.KUBELET_TS_RUNTIME_DIR || '/run/kubelet-ts-runtime', 'env')),
  ...readEnvFile(path.join(process.env.KUBELET_TS_CONTROL_PLANE_DIR || '/run/kubelet-ts-control-plane', 'env')),
};
const kubelet = await startUpstreamKubelet({ env, dir, config: JSON.parse(config), log: (line) => process.stderr.write(`${line}\n`) });
process.stdout.write(`ready ${kubelet.nodeName}\n`);
process.stdin.resume();
process.stdin.on('end', async () => {
  await kubelet.stop();
  process.exit(0);
});
