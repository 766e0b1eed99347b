import { expect } from "chai";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseDockerfile } from "./dockerfile.js";
import { pinnedNodeVersion } from "./image-replay.js";
import { projectNode, projectNodeVersion } from "./project-node.js";

const root = join(import.meta.dirname, "..", "..");

describe("the project's Node (.node-version)", function () {
  // The first run on a machine installs Node into the project's cache.
  this.timeout(300_000);

  it("is the Node the Dockerfile's base image pins, by tag and in its base-image label", () => {
    const version = projectNodeVersion(root);
    const { stages } = parseDockerfile(readFileSync(join(root, "Dockerfile"), "utf8"));
    const names = stages.map((stage) => stage.name);
    const bases = stages.map((stage) => stage.from).filter((from) => !names.includes(from));
    expect(bases.map(pinnedNodeVersion)).to.deep.equal(bases.map(() => version));
    const labels = stages
      .flatMap((stage) => stage.instructions)
      .flatMap((instruction) => (instruction.kind === "LABEL" ? instruction.pairs : []));
    expect(Object.fromEntries(labels)).to.include({
      "org.opencontainers.image.base.name": `docker.io/library/node:${version}-bookworm-slim`,
    });
  });

  it("is installed from the project's cache as the very version .node-version states", async () => {
    const node = await projectNode(root);
    expect(node.version).to.equal(projectNodeVersion(root));
    expect(existsSync(node.binary), node.binary).to.equal(true);
  });
});
