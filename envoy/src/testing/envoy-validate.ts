/**
 * Test support: Envoy's own verdict (`envoy --mode validate`) on configurations the generator
 * renders, each with the contract's descriptor set and secret files written for it, so a spec
 * proves that Envoy accepts what it asserts about.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ensureEnvoy } from "../../../scripts/infra/envoy.js";
import type { Contract } from "../../../scripts/codegen/contract-descriptors.js";
import { renderEnvoyYaml } from "../envoy-config.js";
import { routedServices, type EnvoyOptions } from "../envoy-options.js";
import { writeEnvoySecrets } from "../envoy-secrets.js";

const run = promisify(execFile);

/** The options of a configuration to validate; the files it names are written here. */
export type ValidatedOptions = Omit<EnvoyOptions, "descriptorPath" | "jwksPath" | "edgeCredentialsDir">;

/** Whether Envoy accepts each configuration: what it printed, and the line that says so. */
export async function validateEnvoyConfigs(
  contract: Contract,
  configurations: readonly ValidatedOptions[],
): Promise<{ stdout: string; accepted: string }[]> {
  const envoy = await ensureEnvoy();
  const dir = await mkdtemp(join(tmpdir(), "envoy-validate-"));
  try {
    const descriptorPath = join(dir, "contract.binpb");
    await writeFile(descriptorPath, contract.descriptorSet);
    const files = await writeEnvoySecrets(
      join(dir, "secrets"),
      { jwtSecret: "j".repeat(64), edgeSecret: "e" },
      routedServices,
    );
    const configPath = join(dir, "envoy.yaml");
    const verdicts: { stdout: string; accepted: string }[] = [];
    for (const options of configurations) {
      await writeFile(configPath, renderEnvoyYaml(contract, { ...options, descriptorPath, ...files }));
      const { stdout } = await run(envoy, ["--mode", "validate", "-c", configPath, "--log-level", "error"]);
      verdicts.push({ stdout, accepted: `configuration '${configPath}' OK` });
    }
    return verdicts;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
