import { expect } from "chai";
import { SignJWT } from "jose";
import { createTokenVerifier } from "./token-verifier.js";

const key = new TextEncoder().encode("k".repeat(64));
const otherKey = new TextEncoder().encode("o".repeat(64));

function sign(
  claims: Record<string, unknown>,
  options: { alg?: string; key?: Uint8Array; exp?: number | null } = {},
): Promise<string> {
  const jwt = new SignJWT({ uid: 7, ...claims })
    .setProtectedHeader({ alg: options.alg ?? "HS512" })
    .setSubject("a@b.c")
    .setIssuedAt();
  if (options.exp !== null) jwt.setExpirationTime(options.exp ?? Math.floor(Date.now() / 1000) + 60);
  return jwt.sign(options.key ?? key);
}

describe("createTokenVerifier", () => {
  const verify = createTokenVerifier(key);

  it("accepts an HS512 token with sub, role, uid and a future exp", async () => {
    expect(await verify(`Bearer ${await sign({ role: "ADMIN" })}`)).to.deep.equal({
      userId: 7,
      email: "a@b.c",
      role: "ADMIN",
    });
    expect(await verify(`bearer ${await sign({ role: "CUSTOMER", uid: 4294967295 })}`)).to.deep.equal({
      userId: 4294967295,
      email: "a@b.c",
      role: "CUSTOMER",
    });
  });

  const refused: [string, () => Promise<string | undefined>][] = [
    ["no header", () => Promise.resolve(undefined)],
    ["another scheme", async () => `Basic ${await sign({ role: "ADMIN" })}`],
    ["HS256", async () => `Bearer ${await sign({ role: "ADMIN" }, { alg: "HS256" })}`],
    ["another key", async () => `Bearer ${await sign({ role: "ADMIN" }, { key: otherKey })}`],
    ["no exp", async () => `Bearer ${await sign({ role: "ADMIN" }, { exp: null })}`],
    [
      "a past exp",
      async () => `Bearer ${await sign({ role: "ADMIN" }, { exp: Math.floor(Date.now() / 1000) - 5 })}`,
    ],
    ["no role", async () => `Bearer ${await sign({})}`],
    ["an unknown role", async () => `Bearer ${await sign({ role: "ROOT" })}`],
    ["no uid", async () => `Bearer ${await sign({ role: "CUSTOMER", uid: undefined })}`],
    ["a uid of 0", async () => `Bearer ${await sign({ role: "CUSTOMER", uid: 0 })}`],
    ["a fractional uid", async () => `Bearer ${await sign({ role: "CUSTOMER", uid: 1.5 })}`],
    ["a uid as a string", async () => `Bearer ${await sign({ role: "CUSTOMER", uid: "7" })}`],
    ["a uid beyond 32 bits", async () => `Bearer ${await sign({ role: "CUSTOMER", uid: 2 ** 32 })}`],
  ];
  for (const [what, header] of refused) {
    it(`refuses ${what}`, async () => {
      expect(await verify(await header())).to.equal(undefined);
    });
  }

  it("stops accepting a cached token once it expires", async () => {
    const token = await sign({ role: "CUSTOMER" }, { exp: Math.floor(Date.now() / 1000) + 1 });
    expect(await verify(`Bearer ${token}`)).to.deep.equal({ userId: 7, email: "a@b.c", role: "CUSTOMER" });
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    expect(await verify(`Bearer ${token}`)).to.equal(undefined);
  });
});
