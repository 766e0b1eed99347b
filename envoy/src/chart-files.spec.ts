import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "chai";
import { deployableServices } from "../../scripts/cluster/service-catalog.js";
import { chartFilesDir, markTracedLines, renderChartFiles, tracedLineMark } from "./chart-files.js";
import {
  buildDescriptorSet,
  loadContract,
  type Contract,
} from "../../scripts/codegen/contract-descriptors.js";

const repoRoot = join(import.meta.dirname, "..", "..");

describe("the Helm chart's generated files (helm/files)", () => {
  let contract: Contract;

  before(async () => {
    contract = loadContract(await buildDescriptorSet(repoRoot));
  });

  it("match what the generator renders now (run `npm run envoy:config` after changing the contract or the catalog)", async () => {
    for (const [name, contents] of renderChartFiles(contract)) {
      const committed = await readFile(join(chartFilesDir, name));
      expect(Buffer.compare(committed, Buffer.from(contents)) === 0, `helm/files/${name} is stale`).to.equal(
        true,
      );
    }
  });

  it("route every routed service and the public site of the catalog to a release-named upstream, and hold the catalog as it is", () => {
    const files = renderChartFiles(contract);
    const envoyYaml = String(files.get("envoy.yaml"));
    for (const service of deployableServices) {
      expect(envoyYaml.includes(`address: __FULLNAME__-${service.name}\n`), service.name).to.equal(
        service.routed || service.kind === "site",
      );
    }
    const catalog = JSON.parse(String(files.get("services.json"))) as { services: unknown[] };
    expect(catalog.services).to.deep.equal(
      deployableServices.map(({ name, peers, owns, routed, kind }) => ({ name, peers, owns, routed, kind })),
    );
  });

  it("hold the traced and the untraced configuration in one file: the tracer's lines marked", () => {
    const untraced = "a:\n  b: 1\nc:\n  - d\n";
    const traced = "t: 0\na:\n  b: 1\n  tracing: {}\nc:\n  - d\n  - collector\n";
    const marked = markTracedLines(untraced, traced);
    const lines = marked.split("\n");
    expect(lines.filter((line) => !line.startsWith(tracedLineMark)).join("\n")).to.equal(untraced);
    expect(marked.replaceAll(tracedLineMark, "")).to.equal(traced);
    expect(lines.filter((line) => line.startsWith(tracedLineMark))).to.deep.equal([
      "#traced#t: 0",
      "#traced#  tracing: {}",
      "#traced#  - collector",
    ]);
    expect(() => markTracedLines("a: 1\nb: 2\n", "a: 1\nb: 3\n")).to.throw("does not hold the untraced one");
  });
});
