import { expect } from "chai";
import { createPasswordHasher } from "./password-hasher.js";

describe("createPasswordHasher", () => {
  const hasher = createPasswordHasher();

  it("hashes with argon2id at OWASP's parameters (m = 19 MiB, t = 2, p = 1) and a fresh salt", async () => {
    const first = await hasher.hash("correct horse battery");
    const second = await hasher.hash("correct horse battery");
    expect(first).to.match(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(first).not.to.include("correct horse battery");
    expect(first).not.to.equal(second);
  });

  it("verifies the right password only", async () => {
    const hashed = await hasher.hash("correct horse battery");
    expect(await hasher.verify(hashed, "correct horse battery")).to.equal(true);
    expect(await hasher.verify(hashed, "correct horse batterY")).to.equal(false);
  });

  it("treats a malformed stored hash as a mismatch, not a crash", async () => {
    expect(await hasher.verify("not a hash", "anything")).to.equal(false);
  });
});
