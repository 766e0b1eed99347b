/** `npm run chart:values-table`: rewrites the README's values table from the chart's schema. */
import { readFile, writeFile } from "node:fs/promises";
import { readmePath, readmeWithValuesTable } from "./values-table.js";

await writeFile(readmePath, await readmeWithValuesTable(await readFile(readmePath, "utf8")));
process.stderr.write(`wrote the values table in ${readmePath}\n`);
