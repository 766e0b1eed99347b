/**
 * Schemathesis, an outside fuzzer, against the deployment at BASE_URL, from the API's
 * description that deployment serves (ADR 0015): every phase
 * (examples, coverage, fuzzing, stateful, following the document's links) and every check
 * (server errors, statuses, content types, headers and bodies as documented, invalid data
 * refused, valid data accepted, use after delete, ignored authentication, undeclared methods),
 * once as a customer and then as an admin, whose run may delete the customer. Zero failures.
 * The document itself is first validated against OpenAPI 3.1 with openapi-spec-validator.
 * Runs after the acceptance suite: it leaves the deployment full of what it made.
 */
import { expect } from "chai";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureApiTestTools, type ApiTestTools } from "#testing/schemathesis.js";
import { adminLogin, registeredUser } from "../acceptance/support/accounts.js";
import { acceptanceEnvironment } from "../acceptance/support/environment.js";

/** What a run reports of itself (its JSON report). */
interface RunReport {
  readonly exit_code: number;
  readonly seed: number;
  readonly operations: { readonly selected: number; readonly tested: number };
  readonly test_cases: { readonly generated: number; readonly unique_failures: number };
  readonly phases: Readonly<Record<string, { readonly status: string }>>;
}

/** A fixed seed, so that a failure found in CI is found again; SCHEMATHESIS_SEED to explore. */
const seed = process.env["SCHEMATHESIS_SEED"] ?? "20261127";
const configFile = join(import.meta.dirname, "schemathesis.toml");

function run(command: readonly string[], args: readonly string[], env: NodeJS.ProcessEnv) {
  const [program, ...leading] = command;
  return new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      program ?? "",
      [...leading, ...args],
      { cwd: import.meta.dirname, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

describe("Schemathesis against the served API description", function () {
  this.timeout(15 * 60_000);
  let tools: ApiTestTools;
  let scratch: string;

  before(async () => {
    tools = await ensureApiTestTools();
    scratch = await mkdtemp(join(tmpdir(), "schemathesis-"));
  });

  after(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it("serves a document that is valid OpenAPI 3.1", async () => {
    const response = await fetch(`${acceptanceEnvironment().baseUrl}/openapi.json`);
    expect(response.status).to.equal(200);
    const file = join(scratch, "openapi.json");
    await writeFile(file, Buffer.from(await response.arrayBuffer()));
    const { code, output } = await run(tools.openapiSpecValidator, [file], {});
    expect(output.trim(), output).to.equal(`${file}: OK`);
    expect(code).to.equal(0);
  });

  async function fuzz(role: string, token: string): Promise<void> {
    const reportFile = join(scratch, `${role}.json`);
    const { code, output } = await run(
      tools.schemathesis,
      [
        "--config-file",
        configFile,
        "run",
        `${acceptanceEnvironment().baseUrl}/openapi.json`,
        "--seed",
        seed,
        "--no-color",
        "--report",
        "json",
        "--report-json-path",
        reportFile,
      ],
      // Hypothesis's own folder goes with the run's scratch, not beside the suite.
      { SCHEMATHESIS_TOKEN: token, HYPOTHESIS_STORAGE_DIRECTORY: join(scratch, "hypothesis") },
    );
    const report = JSON.parse(await readFile(reportFile, "utf8")) as RunReport;
    process.stdout.write(
      `      ${role}: ${report.operations.tested} of ${report.operations.selected} operations, ` +
        `${report.test_cases.generated} test cases, ` +
        `${report.test_cases.unique_failures} failures (seed ${report.seed})\n`,
    );
    const failures = output.slice(Math.max(0, output.indexOf("FAILURES")));
    expect(report.test_cases.unique_failures, failures).to.equal(0);
    expect(report.operations.tested).to.equal(report.operations.selected);
    expect(Object.values(report.phases).map((phase) => phase.status)).to.not.include("failure");
    expect(code, failures).to.equal(0);
  }

  it("finds nothing as a customer", async () => {
    const customer = await registeredUser(`fuzz-${randomBytes(4).toString("hex")}`);
    await fuzz("customer", customer.token);
  });

  it("finds nothing as an admin", async () => {
    await fuzz("admin", await adminLogin());
  });
});
