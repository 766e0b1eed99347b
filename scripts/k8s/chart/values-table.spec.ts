import { readFile } from "node:fs/promises";
import { expect } from "chai";
import {
  guideWithValuesTable,
  kubernetesGuidePath,
  renderValuesTable,
  tableEnd,
  tableStart,
  withValuesTable,
} from "./values-table.js";

describe("the Kubernetes guide's table of chart values", () => {
  it("is the one values.schema.json and values.yaml give (run `npm run chart:values-table` after changing them)", async () => {
    const guide = await readFile(kubernetesGuidePath, "utf8");
    expect(
      (await guideWithValuesTable(guide)) === guide,
      "docs/kubernetes.md's values table is stale",
    ).to.equal(true);
  });

  it("has a row per described value, with its default", async () => {
    const table = await renderValuesTable();
    expect(table).to.include("| `mongodb.url` | string | `mongodb://mongodb:27017` |");
    expect(table).to.include("| `envoy.service.type` | `ClusterIP`, `LoadBalancer` | `ClusterIP` |");
    expect(table).to.include('| `secrets.jwt.existingSecret` | string | `""` |');
    expect(withValuesTable(`a\n${tableStart}\nold\n${tableEnd}\nb`, "new")).to.equal(
      `a\n${tableStart}\n\nnew\n\n${tableEnd}\nb`,
    );
  });
});
