import { expect } from "chai";
import { api } from "./support/api.js";
import { registeredUser } from "./support/accounts.js";
import { signToken, tamperedToken, tokenWithoutExpiry, unsignedToken, userIdOf } from "./support/tokens.js";

describe("Edge: tokens", () => {
  const rejected: [string, (user: { email: string; token: string }) => Promise<string> | string][] = [
    [
      "an expired token",
      (u) => signToken({ sub: u.email, uid: userIdOf(u.token), role: "CUSTOMER", expiresIn: -60 }),
    ],
    ["a token with a changed role claim", (u) => tamperedToken(u.token, { role: "ADMIN" })],
    ["a token with a changed subject", (u) => tamperedToken(u.token, { sub: "someone.else@example.test" })],
    ["an unsigned alg:none token", (u) => unsignedToken({ sub: u.email, role: "ADMIN" })],
    [
      "a token signed with another key",
      (u) => signToken({ sub: u.email, uid: userIdOf(u.token), role: "CUSTOMER" }, { key: "k".repeat(64) }),
    ],
    [
      "an HS256 token signed with the right key",
      (u) => signToken({ sub: u.email, uid: userIdOf(u.token), role: "CUSTOMER" }, { alg: "HS256" }),
    ],
    [
      "a correctly signed token without exp",
      (u) => tokenWithoutExpiry({ sub: u.email, uid: userIdOf(u.token), role: "CUSTOMER" }),
    ],
    [
      "a token with an unknown role",
      (u) => signToken({ sub: u.email, uid: userIdOf(u.token), role: "ROOT" }),
    ],
    ["a token without a user id (uid)", (u) => signToken({ sub: u.email, role: "CUSTOMER" })],
    ["garbage", () => "not.a.jwt"],
  ];
  for (const [what, make] of rejected) {
    it(`answers 401 to ${what}`, async () => {
      const user = await registeredUser();
      const response = await api("GET", "/api/users/me", { token: await make(user) });
      expect(response.status).to.equal(401);
      expect(response.body).to.deep.equal({
        status: 401,
        code: "UNAUTHENTICATED",
        message: "a valid bearer token is required",
      });
    });
  }

  it("accepts a correctly signed HS512 token it did not issue itself", async () => {
    const user = await registeredUser();
    const response = await api("GET", "/api/users/me", {
      token: await signToken({ sub: user.email, uid: userIdOf(user.token), role: "CUSTOMER" }),
    });
    expect(response.status).to.equal(200);
  });
});

describe("Edge: routing and errors", () => {
  it("answers 404 with the JSON error body for an unknown path", async () => {
    const response = await api("GET", "/api/nothing-here");
    expect(response.status).to.equal(404);
    expect(response.headers.get("content-type")).to.match(/^application\/json/);
    expect(response.body).to.deep.equal({
      status: 404,
      code: "NOT_FOUND",
      message: "no route for this path",
    });
  });

  it("answers 405 with an Allow header for a known path and another method", async () => {
    const response = await api("DELETE", "/api/auth/login");
    expect(response.status).to.equal(405);
    expect(response.headers.get("allow")).to.equal("POST");
  });

  it("answers 400 for an unknown query parameter", async () => {
    const user = await registeredUser();
    const response = await api("GET", "/api/users/me?debug=1", { token: user.token });
    expect(response.status).to.equal(400);
    expect(response.body).to.deep.equal({
      status: 400,
      code: "INVALID_ARGUMENT",
      message: 'unknown query parameter "debug"',
    });
  });

  it("does not expose internal RPCs over REST", async () => {
    const response = await api("POST", "/commerce.user.v1.DirectoryService/CreateProfile", { body: {} });
    expect(response.status).to.equal(404);
  });
});
