/**
 * The README's "Try it", run exactly as written, in a fresh shell (nothing in its environment but
 * PATH and HOME), against a platform started as `npm start` starts on a fresh clone: no settings,
 * so its admin and secrets are generated under its data folder. It needs
 *   BASE_URL  the platform's edge (the block's default is `npm start`'s, http://127.0.0.1:8080)
 *   DATA_DIR  the platform's data folder (the block's default is `npm start`'s, .data)
 * which npm test sets.
 */
import { expect } from "chai";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dirname, "..", "..");

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === "") {
    throw new Error(`the README's Try it needs ${name} (npm test sets it; see docs/developing.md, "Tests")`);
  }
  return value;
}

/** The first `sh` block under the README's "## Try it" heading, as a reader copies it. */
function tryItBlock(): string {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.split(/^## /m).find((part) => part.startsWith("Try it\n"));
  const block = /^```sh\n([\s\S]*?)^```$/m.exec(section ?? "")?.[1];
  if (block === undefined) throw new Error('README.md has no sh block under "## Try it"');
  return block;
}

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Pastes the block into a fresh shell at the clone's root. */
function paste(block: string, env: Readonly<Record<string, string>>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      "bash",
      ["-c", block],
      {
        cwd: root,
        env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: process.env["HOME"] ?? "/", ...env },
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

async function get(path: string, token: string): Promise<unknown> {
  const response = await fetch(new URL(path, required("BASE_URL")), {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status, path).to.equal(200);
  return response.json();
}

describe("the README's Try it", () => {
  it("is one block that runs in bash, stops at the first failure and lets curl fail on an error status", () => {
    const block = tryItBlock();
    expect(block.split("\n")[0]).to.equal("bash -euo pipefail <<'TRY'");
    expect(block.trimEnd().split("\n").at(-1)).to.equal("TRY");
    const curls = block.match(/\bcurl /g) ?? [];
    expect(curls).to.have.length.greaterThan(0);
    expect(block.match(/\bcurl -sS --fail-with-body /g)).to.have.length(curls.length);
  });

  it("takes a new customer from nothing to a paid, confirmed order, in a fresh shell", async function () {
    this.timeout(60_000);
    const run = await paste(tryItBlock(), { BASE_URL: required("BASE_URL"), DATA_DIR: required("DATA_DIR") });
    expect(run.code, run.stderr).to.equal(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines, run.stdout).to.have.length(4);
    expect(lines[0]).to.match(/^categories: (\S+, )*books(, \S+)*$/);
    expect(lines[1]).to.equal('{"message":"user registered successfully"}');
    const paid = /^payment of 39\.98 for order (\S+): SUCCESS$/.exec(lines[2] ?? "");
    expect(paid, lines[2]).to.not.equal(null);
    const orderId = paid?.[1] ?? "";
    expect(lines[3]).to.equal(`order ${orderId}: CONFIRMED`);

    // What it says happened, read back as the admin: one order of two pens, confirmed, paid once.
    const password = readFileSync(join(required("DATA_DIR"), "secrets", "admin-password"), "utf8");
    const login = await fetch(new URL("/api/auth/login", required("BASE_URL")), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "admin@commerce.local", password }),
    });
    const { token } = (await login.json()) as { token: string };
    const order = (await get(`/api/orders/${orderId}`, token)) as {
      status: string;
      totalAmount: number;
      items: { quantity: number; price: number }[];
    };
    expect(order).to.deep.include({ status: "CONFIRMED", totalAmount: 39.98 });
    expect(order.items.map(({ quantity, price }) => ({ quantity, price }))).to.deep.equal([
      { quantity: 2, price: 19.99 },
    ]);
  });

  it("stops, saying why, when the platform it needs is not there", async function () {
    this.timeout(60_000);
    const empty = await mkdtemp(join(tmpdir(), "try-it-"));
    try {
      const run = await paste(tryItBlock(), { BASE_URL: required("BASE_URL"), DATA_DIR: empty });
      expect(run.code).to.not.equal(0);
      expect(run.stderr).to.include(join(empty, "secrets", "admin-password"));
      expect(run.stdout, "nothing done before").to.equal("");
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
