import { expect } from "chai";
import { api, type ApiResponse } from "./support/api.js";
import { login, registration, uniqueEmail } from "./support/accounts.js";
import { onLoopback } from "./support/environment.js";
import { decodeClaims, decodeHeader } from "./support/tokens.js";

describe("Auth: POST /api/auth/register", () => {
  it("creates an account and answers 201 with a message", async () => {
    const response = await api("POST", "/api/auth/register", { body: registration() });
    expect(response.status).to.equal(201);
    expect(response.body).to.deep.equal({ message: "user registered successfully" });
  });

  it("refuses a second account for the same email, whatever its case, with 409", async () => {
    const input = registration();
    expect((await api("POST", "/api/auth/register", { body: input })).status).to.equal(201);
    const again = await api("POST", "/api/auth/register", {
      body: { ...input, email: input.email.toUpperCase() },
    });
    expect(again.status).to.equal(409);
    expect(again.body).to.deep.equal({
      status: 409,
      code: "ALREADY_EXISTS",
      message: "an account with this email already exists",
    });
  });

  const invalid: [string, Record<string, unknown>][] = [
    ["a malformed email", { email: "not-an-email" }],
    ["a missing email", { email: undefined }],
    ["a missing full name", { fullName: undefined }],
    ["a blank full name", { fullName: "   " }],
    ["a password under 8 characters", { password: "short7!" }],
    ["a malformed phone number", { phoneNo: "call me" }],
    ["an operator object instead of an email", { email: { $ne: null } }],
    ["a number instead of a password", { password: 12345678 }],
    ["an unknown field (role escalation attempt)", { role: "ADMIN" }],
  ];
  for (const [what, change] of invalid) {
    it(`answers 400 with a JSON error for ${what}, and creates nothing`, async () => {
      const input: Record<string, unknown> = { ...registration(), ...change };
      const response = await api("POST", "/api/auth/register", { body: input });
      expect(response.status, response.text).to.equal(400);
      expect(response.body).to.include({ status: 400, code: "INVALID_ARGUMENT" });
      expect((response.body as { message: string }).message).to.be.a("string").and.not.empty;
      if (
        typeof input["email"] === "string" &&
        input["email"].includes("@") &&
        typeof input["password"] === "string"
      ) {
        const probe = await api("POST", "/api/auth/login", {
          body: { email: input["email"], password: input["password"] },
        });
        expect(probe.status).to.equal(404);
      }
    });
  }

  it("answers 400 for a body that is not JSON", async () => {
    const response = await api("POST", "/api/auth/register", {
      rawBody: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(response.status).to.equal(400);
    expect(response.body).to.deep.equal({
      status: 400,
      code: "INVALID_ARGUMENT",
      message: "request body is not valid JSON",
    });
  });

  it("answers 400 for a JSON array where an object is expected", async () => {
    const response = await api("POST", "/api/auth/register", { body: [registration()] });
    expect(response.status).to.equal(400);
  });

  it("answers 413 for a body over 1 MiB", async () => {
    const response = await api("POST", "/api/auth/register", {
      body: { ...registration(), fullName: "x".repeat(1024 * 1024) },
    });
    expect(response.status).to.equal(413);
    expect(response.body).to.include({ status: 413, code: "PAYLOAD_TOO_LARGE" });
  });
});

describe("Auth: POST /api/auth/login", () => {
  it("returns an HS512 Bearer token with sub, role, name, iat and exp (one hour)", async () => {
    const input = registration();
    await api("POST", "/api/auth/register", { body: input });
    const response = await api("POST", "/api/auth/login", {
      body: { email: input.email, password: input.password },
    });
    expect(response.status).to.equal(200);
    const body = response.body as { token: string; type: string };
    expect(Object.keys(body).sort()).to.deep.equal(["token", "type"]);
    expect(body.type).to.equal("Bearer");
    expect(decodeHeader(body.token)).to.include({ alg: "HS512" });
    const claims = decodeClaims(body.token);
    expect(claims).to.include({ sub: input.email, role: "CUSTOMER", name: input.fullName });
    expect(claims["exp"]).to.be.a("number");
    expect((claims["exp"] as number) - (claims["iat"] as number)).to.equal(3600);
    expect(Math.abs((claims["iat"] as number) - Date.now() / 1000)).to.be.below(60);
  });

  it("accepts the email in another case", async () => {
    const input = registration();
    await api("POST", "/api/auth/register", { body: input });
    const token = await login(input.email.toUpperCase(), input.password);
    expect(decodeClaims(token)["sub"]).to.equal(input.email.toLowerCase());
  });

  it("answers 401 for a wrong password and 404 for an unknown email, with the same generic message", async () => {
    const input = registration();
    await api("POST", "/api/auth/register", { body: input });
    const wrong = await api("POST", "/api/auth/login", {
      body: { email: input.email, password: "not the password" },
    });
    const unknown = await api("POST", "/api/auth/login", {
      body: { email: uniqueEmail("ghost"), password: "whatever123" },
    });
    expect(wrong.status).to.equal(401);
    expect(unknown.status).to.equal(404);
    expect((wrong.body as { message: string }).message).to.equal("invalid email or password");
    expect((unknown.body as { message: string }).message).to.equal("invalid email or password");
  });

  it("answers a login whose email holds control characters, U+0000 among them, as an unknown email: 404", async () => {
    for (const email of ["\u0000@example.com", "a\u0010\u0000b@example.com", "tab\there@example.com"]) {
      const answer = await api("POST", "/api/auth/login", { body: { email, password: "whatever123" } });
      expect(answer.status, answer.text).to.equal(404);
      expect(answer.body).to.deep.equal({
        status: 404,
        code: "NOT_FOUND",
        message: "invalid email or password",
      });
    }
  });

  /** The answer of a login of `email` with `password`, from `localAddress` when given. */
  function loginFrom(email: string, password: string, localAddress?: string): Promise<ApiResponse> {
    return api("POST", "/api/auth/login", {
      body: { email, password },
      ...(localAddress === undefined ? {} : { localAddress: onLoopback(localAddress) }),
    });
  }

  /** A 429 of the login throttle: `Retry-After` in seconds, and the one error body saying it. */
  function expectWaiting(response: ApiResponse, maxSeconds: number): void {
    expect(response.status, response.text).to.equal(429);
    const seconds = Number(response.headers.get("retry-after"));
    expect(seconds).to.be.within(1, maxSeconds);
    expect(response.body).to.deep.equal({
      status: 429,
      code: "RESOURCE_EXHAUSTED",
      message: `too many failed logins; retry in ${seconds} s`,
    });
  }

  it("slows an account's logins from one address after 5 failures (429, even for the right password there), not from another address", async () => {
    const input = registration("throttled");
    await api("POST", "/api/auth/register", { body: input });
    for (let i = 0; i < 5; i++) {
      expect((await loginFrom(input.email, `wrong-${i}-password`)).status).to.equal(401);
    }
    // The sixth check waits 30 s after the fifth.
    expectWaiting(await loginFrom(input.email, input.password), 30);
    const elsewhere = await loginFrom(input.email, input.password, "127.0.0.3");
    expect(elsewhere.status, elsewhere.text).to.equal(200);
  });

  it("after 50 wrong passwords for an account from one client address, logs the owner in from another; the first address waits", async () => {
    const input = registration("besieged");
    await api("POST", "/api/auth/register", { body: input });
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) {
      const attempt = await loginFrom(input.email, `wrong-${i}-password`, "127.0.0.2");
      statuses.push(attempt.status);
      if (attempt.status === 429) expectWaiting(attempt, 30);
    }
    // Five checked, then 30 s to wait after the fifth: the other 45 are not checked.
    expect(statuses.filter((status) => status === 401)).to.have.length(5);
    expect(statuses.filter((status) => status === 429)).to.have.length(45);
    expectWaiting(await loginFrom(input.email, input.password, "127.0.0.2"), 30);
    const owner = await loginFrom(input.email, input.password, "127.0.0.1");
    expect(owner.status, owner.text).to.equal(200);
    expect(decodeClaims((owner.body as { token: string }).token)).to.include({ sub: input.email });
  });

  it("throttles an unknown email exactly as an account: 5 answers of 404, then 429", async () => {
    const ghost = uniqueEmail("ghost");
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await loginFrom(ghost, "whatever123", "127.0.0.4")).status);
    expect(statuses).to.deep.equal([404, 404, 404, 404, 404]);
    expectWaiting(await loginFrom(ghost, "whatever123", "127.0.0.4"), 30);
  });

  it("checks exactly 5 passwords of 50 concurrent logins for one account from one address; the rest wait (429 or 503)", async () => {
    const input = registration("raced");
    await api("POST", "/api/auth/register", { body: input });
    const attempts = await Promise.all(
      Array.from({ length: 50 }, (_, i) => loginFrom(input.email, `wrong-${i}-password`)),
    );
    // 429: the throttle refuses a check; 503: the server's password work is at capacity
    // (which of the two depends on arrival order). Either way nothing else was checked.
    const statuses = attempts.map((attempt) => attempt.status);
    expect(statuses.filter((status) => status === 401)).to.have.length(5);
    expect(statuses.filter((status) => status !== 401 && status !== 429 && status !== 503)).to.deep.equal([]);
    // 30 s after the latest check, counted from each login's own arrival: a concurrent one that
    // arrived a moment earlier waits up to a second more.
    for (const attempt of attempts.filter((a) => a.status === 429)) expectWaiting(attempt, 31);
    for (const attempt of attempts.filter((a) => a.status === 503)) {
      expect(attempt.headers.get("retry-after")).to.equal("1");
    }
    // The limit held: the right password waits there too.
    expectWaiting(await loginFrom(input.email, input.password), 30);
  });

  it("answers 400 for an operator object instead of an email", async () => {
    const response = await api("POST", "/api/auth/login", { body: { email: { $ne: null }, password: "x" } });
    expect(response.status).to.equal(400);
  });

  it("never returns the password or its hash", async () => {
    const input = registration();
    const registered = await api("POST", "/api/auth/register", { body: input });
    const loggedIn = await api("POST", "/api/auth/login", {
      body: { email: input.email, password: input.password },
    });
    for (const text of [registered.text, loggedIn.text]) {
      expect(text).not.to.include(input.password);
      expect(text).not.to.include("argon2");
    }
  });
});
