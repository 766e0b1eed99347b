/**
 * Schemathesis, the outside fuzzer of the API (test/schemathesis), and openapi-spec-validator,
 * which checks the API's description against OpenAPI 3.1: installed from PyPI into a virtual
 * environment that is an artifact of the project's cache (scripts/cache/cached-artifact.ts),
 * with every package pinned by test/schemathesis/requirements.txt. pip's own cache keeps the
 * wheels, so an empty project cache costs an install from it.
 *
 * The tools run as modules of the environment's Python: a virtual environment is built under a
 * scratch name and renamed into place, which its Python survives (it finds its pyvenv.cfg beside
 * itself) but the console scripts pip writes do not (their first line names the scratch path).
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { ensureArtifact, type ArtifactOptions } from "../cache/cached-artifact.js";
import { runInstallCommand } from "../cache/install-command.js";

const requirements = join(import.meta.dirname, "..", "..", "test", "schemathesis", "requirements.txt");
const needsPython = "Python 3.10 or newer with venv and pip is needed for Schemathesis (python3 -m venv)";

/** A command: the program and the arguments that precede the caller's. */
export type Command = readonly [string, ...string[]];

export interface ApiTestTools {
  /** `schemathesis …` */
  readonly schemathesis: Command;
  /** `openapi-spec-validator …` */
  readonly openapiSpecValidator: Command;
}

const cli = (module: string, entry: string, name: string): string =>
  `import sys; from ${module} import ${entry}; sys.exit(${entry}(prog_name="${name}"))`;

/** The tools, installed first if the cache has none for these requirements and this Python. */
export async function ensureApiTestTools(options: ArtifactOptions = {}): Promise<ApiTestTools> {
  const { stdout: pythonVersion } = await promisify(execFile)("python3", ["--version"]).catch(
    (error: unknown) => {
      throw new Error(needsPython, { cause: error });
    },
  );
  const artifact = await ensureArtifact(
    {
      name: "schemathesis",
      inputs: [pythonVersion.trim(), await readFile(requirements)],
      build: async (dir) => {
        await runInstallCommand("python3", ["-m", "venv", dir], { missing: needsPython });
        await runInstallCommand(
          join(dir, "bin", "pip"),
          ["install", "--quiet", "--disable-pip-version-check", "--no-deps", "-r", requirements],
          { missing: needsPython },
        );
        await runInstallCommand(join(dir, "bin", "python"), ["-c", "import schemathesis.cli"], {
          missing: needsPython,
        });
      },
    },
    options,
  );
  const python = join(artifact.dir, "bin", "python");
  return {
    schemathesis: [python, "-c", cli("schemathesis.cli", "schemathesis", "schemathesis")],
    openapiSpecValidator: [python, "-m", "openapi_spec_validator"],
  };
}
