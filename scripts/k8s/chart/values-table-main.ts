/** `npm run chart:values-table`: rewrites docs/kubernetes.md's values table from the chart's schema. */
import { readFile, writeFile } from "node:fs/promises";
import { guideWithValuesTable, kubernetesGuidePath } from "./values-table.js";

await writeFile(kubernetesGuidePath, await guideWithValuesTable(await readFile(kubernetesGuidePath, "utf8")));
process.stderr.write(`wrote the values table in ${kubernetesGuidePath}\n`);
