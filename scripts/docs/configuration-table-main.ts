/** `npm run docs:config`: rewrites docs/configuration.md's table from the settings' declarations. */
import { writeFile } from "node:fs/promises";
import {
  configurationGuidePath,
  configurationGuideWithTable,
  readConfigurationGuide,
} from "./configuration-table.js";

await writeFile(configurationGuidePath, await configurationGuideWithTable(await readConfigurationGuide()));
process.stderr.write(`wrote the settings table in ${configurationGuidePath}\n`);
