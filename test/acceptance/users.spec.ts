import { expect } from "chai";
import { api } from "./support/api.js";
import { adminLogin, login, registeredUser, registration } from "./support/accounts.js";
import { acceptanceEnvironment } from "./support/environment.js";

const address = { street: "12 MG Road", city: "Bengaluru", state: "Karnataka", pincode: "560001" };

interface Profile {
  id: number;
  fullName: string;
  email: string;
  phoneNo: string;
  role: string;
  createdAt: string;
}

describe("User: GET /api/users/me", () => {
  it("is consistent at once after register and login, with exactly the contract's fields", async () => {
    const input = registration();
    expect((await api("POST", "/api/auth/register", { body: input })).status).to.equal(201);
    const token = await login(input.email, input.password);
    const response = await api("GET", "/api/users/me", { token });
    expect(response.status).to.equal(200);
    const profile = response.body as Profile;
    expect(Object.keys(profile).sort()).to.deep.equal([
      "createdAt",
      "email",
      "fullName",
      "id",
      "phoneNo",
      "role",
    ]);
    expect(profile).to.include({
      fullName: input.fullName,
      email: input.email,
      phoneNo: input.phoneNo,
      role: "CUSTOMER",
    });
    expect(profile.id).to.be.a("number").and.above(0);
    expect(profile.createdAt).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
  });

  it("answers 401 without a token", async () => {
    const response = await api("GET", "/api/users/me");
    expect(response.status).to.equal(401);
    expect(response.body).to.deep.equal({
      status: 401,
      code: "UNAUTHENTICATED",
      message: "a valid bearer token is required",
    });
  });

  it("ignores client-sent identity headers: without a token they are 401", async () => {
    const user = await registeredUser();
    const response = await api("GET", "/api/users/me", {
      headers: { "x-user-email": user.email, "x-user-role": "ADMIN" },
    });
    expect(response.status).to.equal(401);
  });

  it("ignores client-sent identity headers: with a token, the token's identity wins", async () => {
    const alice = await registeredUser("alice");
    const bob = await registeredUser("bob");
    const response = await api("GET", "/api/users/me", {
      token: alice.token,
      headers: { "x-user-email": bob.email, "x-user-role": "ADMIN" },
    });
    expect(response.status).to.equal(200);
    expect((response.body as Profile).email).to.equal(alice.email);
    const admin = await api("GET", "/api/users", { token: alice.token, headers: { "x-user-role": "ADMIN" } });
    expect(admin.status).to.equal(403);
  });
});

describe("User: PUT /api/users/me", () => {
  it("updates the full name and phone number", async () => {
    const user = await registeredUser();
    const response = await api("PUT", "/api/users/me", {
      token: user.token,
      body: { fullName: "Asha V. Rao", phoneNo: "+14155550123" },
    });
    expect(response.status).to.equal(200);
    expect(response.body).to.deep.equal({ message: "profile updated" });
    const profile = (await api("GET", "/api/users/me", { token: user.token })).body as Profile;
    expect(profile).to.include({ fullName: "Asha V. Rao", phoneNo: "+14155550123", email: user.email });
  });

  it("answers 400 for an invalid phone number and changes nothing", async () => {
    const user = await registeredUser();
    const response = await api("PUT", "/api/users/me", {
      token: user.token,
      body: { fullName: "New Name", phoneNo: "12" },
    });
    expect(response.status).to.equal(400);
    expect((response.body as { message: string }).message).to.include("phoneNo");
    const profile = (await api("GET", "/api/users/me", { token: user.token })).body as Profile;
    expect(profile).to.include({ fullName: user.fullName, phoneNo: user.phoneNo });
  });
});

describe("User: addresses", () => {
  it("adds, lists, updates and deletes the caller's own addresses", async () => {
    const user = await registeredUser();
    const created = await api("POST", "/api/users/addresses", { token: user.token, body: address });
    expect(created.status).to.equal(201);
    expect(created.body).to.deep.equal({ message: "address added" });

    const listed = await api("GET", "/api/users/addresses", { token: user.token });
    expect(listed.status).to.equal(200);
    const [first, ...others] = listed.body as { id: number }[];
    expect(others).to.have.length(0);
    expect(first).to.deep.equal({ id: first?.id, ...address });
    expect(first?.id).to.be.a("number");

    const changed = { ...address, street: "1 Residency Road" };
    const updated = await api("PUT", `/api/users/addresses/${first?.id}`, {
      token: user.token,
      body: changed,
    });
    expect(updated.status).to.equal(200);
    expect(updated.body).to.deep.equal({ message: "address updated" });
    expect((await api("GET", "/api/users/addresses", { token: user.token })).body).to.deep.equal([
      { id: first?.id, ...changed },
    ]);

    const deleted = await api("DELETE", `/api/users/addresses/${first?.id}`, { token: user.token });
    expect(deleted.status).to.equal(204);
    expect(deleted.text).to.equal("");
    expect((await api("GET", "/api/users/addresses", { token: user.token })).body).to.deep.equal([]);
  });

  it("never hands a deleted address's id to a new address; deleting the old id again removes nothing", async () => {
    const user = await registeredUser("address-ids");
    const idsOf = async (): Promise<number[]> =>
      ((await api("GET", "/api/users/addresses", { token: user.token })).body as { id: number }[]).map(
        (a) => a.id,
      );
    expect((await api("POST", "/api/users/addresses", { token: user.token, body: address })).status).to.equal(
      201,
    );
    const [gone] = await idsOf();
    expect((await api("DELETE", `/api/users/addresses/${gone}`, { token: user.token })).status).to.equal(204);
    expect((await api("POST", "/api/users/addresses", { token: user.token, body: address })).status).to.equal(
      201,
    );
    const [kept] = await idsOf();
    expect(kept).to.be.greaterThan(gone ?? Infinity);
    expect((await api("DELETE", `/api/users/addresses/${gone}`, { token: user.token })).status).to.equal(404);
    expect(await idsOf()).to.deep.equal([kept]);
  });

  it("answers 403 when another user updates or deletes an address, and leaves it unchanged", async () => {
    const owner = await registeredUser("owner");
    const intruder = await registeredUser("intruder");
    await api("POST", "/api/users/addresses", { token: owner.token, body: address });
    const [mine] = (await api("GET", "/api/users/addresses", { token: owner.token })).body as {
      id: number;
    }[];
    const update = await api("PUT", `/api/users/addresses/${mine?.id}`, {
      token: intruder.token,
      body: { ...address, city: "Elsewhere" },
    });
    expect(update.status).to.equal(403);
    expect(update.body).to.deep.equal({
      status: 403,
      code: "PERMISSION_DENIED",
      message: "this address belongs to another user",
    });
    expect(
      (await api("DELETE", `/api/users/addresses/${mine?.id}`, { token: intruder.token })).status,
    ).to.equal(403);
    expect((await api("GET", "/api/users/addresses", { token: intruder.token })).body).to.deep.equal([]);
    expect((await api("GET", "/api/users/addresses", { token: owner.token })).body).to.deep.equal([
      { id: mine?.id, ...address },
    ]);
  });

  it("answers 404 for an unknown address and 400 for a malformed id or pincode", async () => {
    const user = await registeredUser();
    expect(
      (await api("PUT", "/api/users/addresses/999999", { token: user.token, body: address })).status,
    ).to.equal(404);
    expect((await api("DELETE", "/api/users/addresses/999999", { token: user.token })).status).to.equal(404);
    expect((await api("DELETE", "/api/users/addresses/abc", { token: user.token })).status).to.equal(400);
    const bad = await api("POST", "/api/users/addresses", {
      token: user.token,
      body: { ...address, pincode: "!" },
    });
    expect(bad.status).to.equal(400);
    expect((await api("GET", "/api/users/addresses", { token: user.token })).body).to.deep.equal([]);
  });
});

describe("User: admin endpoints", () => {
  it("lists users as { id, email, role } for an admin", async () => {
    const user = await registeredUser();
    const response = await api("GET", "/api/users", { token: await adminLogin() });
    expect(response.status).to.equal(200);
    const users = response.body as { id: number; email: string; role: string }[];
    const me = (await api("GET", "/api/users/me", { token: user.token })).body as Profile;
    expect(users).to.deep.include({ id: me.id, email: user.email, role: "CUSTOMER" });
    expect(users).to.deep.include.members([
      {
        id: users.find((u) => u.email === acceptanceEnvironment().adminEmail.toLowerCase())?.id,
        email: acceptanceEnvironment().adminEmail.toLowerCase(),
        role: "ADMIN",
      },
    ]);
    for (const entry of users) expect(Object.keys(entry).sort()).to.deep.equal(["email", "id", "role"]);
  });

  it("answers 403 to a customer on admin endpoints", async () => {
    const user = await registeredUser();
    const list = await api("GET", "/api/users", { token: user.token });
    expect(list.status).to.equal(403);
    expect(list.body).to.deep.equal({
      status: 403,
      code: "PERMISSION_DENIED",
      message: "admin role required",
    });
    expect((await api("DELETE", "/api/users/1", { token: user.token })).status).to.equal(403);
  });

  it("deletes a user: 204, the user is gone from the list and can no longer log in", async () => {
    const user = await registeredUser("doomed");
    const me = (await api("GET", "/api/users/me", { token: user.token })).body as Profile;
    const admin = await adminLogin();
    const response = await api("DELETE", `/api/users/${me.id}`, { token: admin });
    expect(response.status).to.equal(204);
    expect(response.text).to.equal("");
    const users = (await api("GET", "/api/users", { token: admin })).body as { email: string }[];
    expect(users.map((u) => u.email)).not.to.include(user.email);
    const relogin = await api("POST", "/api/auth/login", {
      body: { email: user.email, password: user.password },
    });
    expect(relogin.status).to.equal(404);
    expect((await api("DELETE", `/api/users/${me.id}`, { token: admin })).status).to.equal(404);
  });

  it("never hands a deleted user's id to the next user; deleting the old id again removes nobody", async () => {
    const admin = await adminLogin();
    const idOf = async (user: { token: string }): Promise<number> =>
      ((await api("GET", "/api/users/me", { token: user.token })).body as Profile).id;
    const newest = await registeredUser("newest");
    const goneId = await idOf(newest);
    expect((await api("DELETE", `/api/users/${goneId}`, { token: admin })).status).to.equal(204);
    const next = await registeredUser("next");
    const nextId = await idOf(next);
    expect(nextId).to.be.greaterThan(goneId);
    expect((await api("DELETE", `/api/users/${goneId}`, { token: admin })).status).to.equal(404);
    const users = (await api("GET", "/api/users", { token: admin })).body as { id: number; email: string }[];
    expect(users).to.deep.include({ id: nextId, email: next.email, role: "CUSTOMER" });
  });

  it("answers 404 for an unknown user id", async () => {
    const response = await api("DELETE", "/api/users/987654", { token: await adminLogin() });
    expect(response.status).to.equal(404);
    expect(response.body).to.deep.equal({ status: 404, code: "NOT_FOUND", message: "user not found" });
  });
});
