/**
 * skaffold.yaml: valid against the JSON schema skaffold v2.16.1 ships for its apiVersion, one
 * artifact per deployable service (the Dockerfile target of its name) mapped into the chart's
 * image values, and accepted by the skaffold binary itself: `diagnose --yaml-only` of every
 * profile, and an offline `render` of the dev profile, whose manifests pass kubeconform -strict
 * and carry the built images; the other two choose no payment gateway, so the chart refuses to
 * render them until an operator does (ADR 0117).
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Ajv } from "ajv";
import { expect } from "chai";
import { parse } from "yaml";
import { deployableServices } from "../../scripts/cluster/service-catalog.js";
import { ensureHelm } from "../../scripts/k8s/helm.js";
import { ensureKubeconform, type Kubeconform } from "../../scripts/k8s/kubeconform.js";
import { kubeVersions } from "../../scripts/k8s/kube-versions.js";
import { runTool, type ToolRun } from "../../scripts/k8s/run-tool.js";
import { ensureSkaffold, type Skaffold } from "../../scripts/k8s/skaffold.js";
import { chartDir, parseManifests } from "./chart.js";

const repoRoot = dirname(chartDir);
const skaffoldFile = join(repoRoot, "skaffold.yaml");

interface SkaffoldYaml {
  readonly apiVersion: string;
  readonly build: {
    readonly artifacts: readonly {
      readonly image: string;
      readonly context: string;
      readonly docker: { readonly dockerfile: string; readonly target: string };
    }[];
  };
  readonly deploy: {
    readonly helm: {
      readonly releases: readonly {
        readonly chartPath: string;
        readonly setValueTemplates: Record<string, string>;
      }[];
    };
  };
  readonly profiles: readonly { readonly name: string }[];
}

interface ContainerImages {
  readonly spec?: {
    readonly template?: { readonly spec?: { readonly containers?: readonly { readonly image: string }[] } };
  };
}

const imageOf = (service: string) => `commerce-platform/${service}`;
/** skaffold's template variable for an image name: `IMAGE_REPO_commerce_platform_analytics_processor`. */
const imageKey = (service: string) => imageOf(service).replace(/[^A-Za-z0-9]/g, "_");

describe("skaffold.yaml", function () {
  // A cold cache builds skaffold, helm and kubeconform first.
  this.timeout(30 * 60_000);
  let skaffold: Skaffold;
  let helm: string;
  let kubeconform: Kubeconform;
  let config: SkaffoldYaml;
  let scratch: string;

  before(async () => {
    skaffold = await ensureSkaffold();
    helm = await ensureHelm();
    kubeconform = await ensureKubeconform();
    config = parse(await readFile(skaffoldFile, "utf8")) as SkaffoldYaml;
    scratch = await mkdtemp(join(tmpdir(), "skaffold-spec-"));
  });

  after(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  /** skaffold with helm on its PATH and its own home, never the user's configuration. */
  const runSkaffold = (args: readonly string[]): Promise<ToolRun> =>
    runTool(skaffold.binary, [...args, "--filename", skaffoldFile], {
      cwd: repoRoot,
      env: {
        HOME: scratch,
        PATH: `${dirname(helm)}:${process.env["PATH"] ?? ""}`,
        SKAFFOLD_UPDATE_CHECK: "false",
        SKAFFOLD_COLLECT_METRICS: "false",
      },
    });

  it(`is valid against skaffold's own schema for skaffold/${kubeVersions.skaffoldSchema}, which refuses a misspelt key`, async () => {
    const schema = JSON.parse(await readFile(skaffold.schema, "utf8")) as object;
    const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
    expect(config.apiVersion).to.equal(`skaffold/${kubeVersions.skaffoldSchema}`);
    expect(validate(config), JSON.stringify(validate.errors)).to.equal(true);
    const misspelt = { ...config, deploy: { helm: { relases: config.deploy.helm.releases } } };
    expect(validate(misspelt)).to.equal(false);
  });

  it("builds one image per deployable service from its Dockerfile target and maps each into the chart", () => {
    const artifacts = config.build.artifacts;
    expect(artifacts.map((a) => [a.image, a.context, a.docker.dockerfile, a.docker.target])).to.deep.equal(
      deployableServices.map((s) => [imageOf(s.name), ".", "Dockerfile", s.name]),
    );
    const release = config.deploy.helm.releases[0];
    expect(release?.chartPath).to.equal("helm");
    const expected: Record<string, string> = {};
    for (const { name } of deployableServices) {
      expected[`services.${name}.image.repository`] = `{{.IMAGE_REPO_${imageKey(name)}}}`;
      expected[`services.${name}.image.tag`] = `{{.IMAGE_TAG_${imageKey(name)}}}`;
    }
    expect(release?.setValueTemplates).to.deep.equal(expected);
    expect(config.profiles.map((p) => p.name)).to.deep.equal(["dev", "production"]);
  });

  for (const profile of [undefined, "dev", "production"]) {
    const profileArgs = profile === undefined ? [] : ["--profile", profile];
    const title = profile ?? "no profile";

    it(`passes skaffold diagnose --yaml-only (${title})`, async () => {
      const result = await runSkaffold(["diagnose", "--yaml-only", ...profileArgs]);
      expect(result.status, result.stderr).to.equal(0);
      expect(result.stdout).to.include("apiVersion: skaffold/v4beta13");
    });

    const builds = deployableServices.map(({ name }) => ({
      imageName: imageOf(name),
      tag: `registry.test/${imageOf(name)}:built-${name}`,
    }));
    /** `skaffold render` of the profile, offline, with these images as built. */
    const render = async (): Promise<ToolRun & { rendered: string }> => {
      const buildFile = join(scratch, `builds-${title}.json`);
      await writeFile(buildFile, JSON.stringify({ builds }));
      const output = join(scratch, `rendered-${title}.yaml`);
      const result = await runSkaffold([
        "render",
        `--output=${output}`,
        "--offline",
        "--digest-source=none",
        `--build-artifacts=${buildFile}`,
        ...profileArgs,
      ]);
      return { ...result, rendered: result.status === 0 ? await readFile(output, "utf8") : "" };
    };

    if (profile !== "dev") {
      // The chart's default values name no admin, and neither they nor the production profile a
      // payment gateway: the operator must (ADR 0117, ADR 0118), so neither renders as it is.
      const missing = profile === undefined ? "admin.email is required" : "no payment gateway is chosen";
      it(`refuses to render through the chart (${title}) until the operator chooses: ${missing}`, async () => {
        const { status, stdout, stderr } = await render();
        expect(status).to.not.equal(0);
        expect(stdout + stderr).to.include(missing);
      });
      continue;
    }

    it(`renders offline through the chart (${title}): kubeconform -strict passes, every service runs its built image`, async () => {
      const { status, stderr, rendered } = await render();
      expect(status, stderr).to.equal(0);
      const validated = await runTool(kubeconform.binary, kubeconform.args, { input: rendered });
      expect(validated.status, validated.stdout).to.equal(0);
      expect(validated.stdout).to.match(/Valid: \d+, Invalid: 0, Errors: 0, Skipped: 0/);
      const images = parseManifests(rendered).flatMap(
        (m) => (m as ContainerImages).spec?.template?.spec?.containers?.map((c) => c.image) ?? [],
      );
      for (const build of builds) expect(images).to.include(build.tag);
    });
  }
});
