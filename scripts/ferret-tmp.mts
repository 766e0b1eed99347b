import { startFerretDb } from "./infra/ferretdb.js";
const f = await startFerretDb({ dataDir: "/tmp/oc/ferret-data2", log: () => undefined });
console.log(f.url);
process.stdin.resume();
process.stdin.on("end", () => void f.stop().then(() => process.exit(0)));
