/**
 * `npm run k8s:tools`: builds the Kubernetes toolchain into the per-user cache (or finds it
 * there), then prints where each tool is and what every build took.
 */
import { ensureKubeTools } from "./kube-tools.js";

const started = performance.now();
const builds: { name: string; seconds: number }[] = [];
const tools = await ensureKubeTools({
  onBuilt: (name, seconds) => {
    builds.push({ name, seconds });
  },
});
const lines = [
  `helm         ${tools.helm}`,
  `kubeconform  ${tools.kubeconform.binary} ${tools.kubeconform.args.join(" ")}`,
  `etcd         ${tools.etcd}`,
  ...Object.entries(tools.controlPlane).map(([name, path]) => `${name.padEnd(12)} ${path}`),
  `kwok         ${tools.kwok.binary} --config ${tools.kwok.stages}`,
  `skaffold     ${tools.skaffold.binary} (schema ${tools.skaffold.schema})`,
  ...builds.map(({ name, seconds }) => `built ${name} in ${seconds.toFixed(1)} s`),
  `${builds.length === 0 ? "all cached" : `${builds.length} built`}; ${((performance.now() - started) / 1000).toFixed(1)} s in all`,
];
process.stdout.write(`${lines.join("\n")}\n`);
