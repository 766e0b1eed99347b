import { expect } from "chai";
import { readdirSync, readFileSync } from "node:fs";
import { DomainError } from "@commerce/runtime/errors";
import { createPasswordHasher, type PasswordWork } from "./password-hasher.js";

describe("createPasswordHasher", () => {
  const hasher = createPasswordHasher({ concurrency: 1, queue: 1 });
  after(() => hasher.close());

  async function withWork<T>(use: (work: PasswordWork) => Promise<T>): Promise<T> {
    const work = hasher.admit();
    try {
      return await use(work);
    } finally {
      work.end();
    }
  }

  it("hashes with argon2id at OWASP's parameters (m = 19 MiB, t = 2, p = 1) and a fresh salt", async () => {
    const first = await withWork((work) => work.hash("correct horse battery"));
    const second = await withWork((work) => work.hash("correct horse battery"));
    expect(first).to.match(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(first).not.to.include("correct horse battery");
    expect(first).not.to.equal(second);
  });

  it("verifies the right password only", async () => {
    const hashed = await withWork((work) => work.hash("correct horse battery"));
    expect(await withWork((work) => work.verify(hashed, "correct horse battery"))).to.equal(true);
    expect(await withWork((work) => work.verify(hashed, "correct horse batterY"))).to.equal(false);
  });

  it("treats a malformed stored hash as a mismatch, not a crash", async () => {
    expect(await withWork((work) => work.verify("not a hash", "anything"))).to.equal(false);
  });

  it("hashes on a thread of lower CPU priority than the threads that serve requests", async () => {
    await withWork((work) => work.hash("correct horse battery"));
    const niceness = (tid: string): number => {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
    };
    const threads = readdirSync("/proc/self/task");
    expect(niceness(String(process.pid))).to.equal(0);
    expect(threads.filter((tid) => niceness(tid) === 10)).to.have.length(1);
  });

  it("refuses a caller beyond its bound with 503 and a retry delay, and admits again once one ends", () => {
    const first = hasher.admit();
    const second = hasher.admit();
    let refusal: unknown;
    try {
      hasher.admit().end();
    } catch (error) {
      refusal = error;
    }
    expect(refusal).to.be.instanceOf(DomainError);
    expect(refusal).to.include({ kind: "unavailable", retryAfterSeconds: 1 });
    first.end();
    const third = hasher.admit();
    second.end();
    third.end();
  });
});
