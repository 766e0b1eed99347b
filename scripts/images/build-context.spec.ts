import { expect } from "chai";
import { isIgnored, parseDockerignore } from "./build-context.js";

describe("isIgnored (Docker's .dockerignore rules)", () => {
  const ignored = (patterns: string, path: string): boolean => isIgnored(parseDockerignore(patterns), path);

  it("leaves out a path whose own name or any parent folder matches, and a later ! lets it back in", () => {
    expect(ignored("*", "services/auth/src/main.ts")).to.equal(true);
    expect(ignored("*\n!services", "services/auth/src/main.ts")).to.equal(false);
    expect(ignored("*\n!scripts/build.ts", "scripts/build.ts")).to.equal(false);
    expect(ignored("*\n!scripts/build.ts", "scripts/test.ts")).to.equal(true);
  });

  it("matches * and ? within one segment and ** across folders, anchored at the context's root", () => {
    expect(ignored("services/*/src/testing", "services/runtime/src/testing/compose.ts")).to.equal(true);
    expect(ignored("services/*/testing", "services/runtime/src/testing/compose.ts")).to.equal(false);
    expect(ignored("**/*.spec.ts", "services/auth/src/login.spec.ts")).to.equal(true);
    expect(ignored("**/*.spec.ts", "login.spec.ts")).to.equal(true);
    expect(ignored("*.spec.ts", "services/auth/src/login.spec.ts")).to.equal(false);
    expect(ignored("/.build/", ".build/dist/x.js")).to.equal(true);
    expect(ignored("ser?ices", "services/a")).to.equal(true);
  });

  it("lets the last matching pattern decide", () => {
    expect(ignored("!services\n*", "services/a.ts")).to.equal(true);
    expect(ignored("*\n!services\n**/node_modules", "services/x/node_modules/y.js")).to.equal(true);
  });

  it("refuses syntax it does not implement, rather than guess", () => {
    expect(() => parseDockerignore("services/[ab]*")).to.throw(/does not read/);
  });
});
