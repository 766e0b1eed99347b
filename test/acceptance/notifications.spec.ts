import { expect } from "chai";
import { adminLogin, registeredUser, type TestUser } from "./support/accounts.js";
import { api } from "./support/api.js";
import { createdProduct, uniqueLabel } from "./support/catalog.js";
import { acceptanceEnvironment } from "./support/environment.js";
import {
  allNotifications,
  awaitMyNotification,
  awaitOwnedNotification,
  myNotifications,
  type NotificationView,
} from "./support/notifications.js";

const timestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

function markRead(notificationId: string, token: string) {
  return api("PUT", `/api/notifications/${encodeURIComponent(notificationId)}/read`, { token });
}

/** The user's welcome and sign-in notifications, once both are there. */
async function welcomeAndSignIn(
  user: TestUser,
): Promise<{ welcome: NotificationView; signIn: NotificationView }> {
  return {
    welcome: await awaitMyNotification(
      user.token,
      "USER_REGISTERED",
      (n) => n.eventType === "USER_REGISTERED",
    ),
    signIn: await awaitMyNotification(user.token, "USER_LOGIN", (n) => n.eventType === "USER_LOGIN"),
  };
}

describe("Notification: GET /api/notifications", function () {
  this.timeout(60_000);

  it("shows a new user USER_REGISTERED and USER_LOGIN notifications, unread, with the contract's fields", async () => {
    const user = await registeredUser("notified");
    const { welcome, signIn } = await welcomeAndSignIn(user);
    expect(welcome).to.include({
      eventType: "USER_REGISTERED",
      message: "Welcome, Asha Verma! Your account has been created.",
      read: false,
    });
    expect(signIn.message).to.match(
      /^New sign-in to your account on \d{4}-\d{2}-\d{2} at \d{2}:\d{2}:\d{2} UTC\.$/,
    );
    expect(signIn.read).to.equal(false);
    for (const notification of [welcome, signIn]) {
      expect(Object.keys(notification).sort()).to.deep.equal([
        "eventType",
        "id",
        "message",
        "read",
        "timestamp",
      ]);
      expect(notification.id).to.be.a("string").and.not.equal("");
      expect(notification.timestamp).to.match(timestamp);
    }
    expect(signIn.timestamp >= welcome.timestamp).to.equal(true);
    expect((await myNotifications(user.token)).map((n) => n.eventType)).to.deep.equal([
      "USER_LOGIN",
      "USER_REGISTERED",
    ]);
  });

  it("tells the customer about their order (ORDER_PLACED) and its status change (ORDER_STATUS_UPDATED), newest first", async () => {
    const user = await registeredUser("notified-buyer");
    const pen = await createdProduct({ price: 19.99, stock: 10 });
    const placed = await api("POST", "/api/orders", {
      token: user.token,
      body: { items: [{ productId: pen, quantity: 3 }] },
    });
    expect(placed.status, placed.text).to.equal(201);
    const { orderId } = placed.body as { orderId: string };
    const placedNotice = await awaitMyNotification(
      user.token,
      "ORDER_PLACED",
      (n) => n.eventType === "ORDER_PLACED",
    );
    expect(placedNotice.message).to.equal(`Your order ${orderId} for ₹59.97 has been placed.`);

    const confirmed = await api("PUT", `/api/orders/${orderId}/status`, {
      token: await adminLogin(),
      body: { status: "CONFIRMED" },
    });
    expect(confirmed.status, confirmed.text).to.equal(200);
    const update = await awaitMyNotification(
      user.token,
      "ORDER_STATUS_UPDATED",
      (n) => n.eventType === "ORDER_STATUS_UPDATED",
    );
    expect(update).to.include({ message: `Your order ${orderId} has been confirmed.`, read: false });
    const [newest, next] = await myNotifications(user.token);
    expect([newest?.id, next?.id]).to.deep.equal([update.id, placedNotice.id]);
  });

  it("pages with page and size, and refuses a size above 100 or an unread value that is not a boolean", async () => {
    const user = await registeredUser("paged");
    const { welcome, signIn } = await welcomeAndSignIn(user);
    expect((await myNotifications(user.token, "page=0&size=1")).map((n) => n.id)).to.deep.equal([signIn.id]);
    expect((await myNotifications(user.token, "page=1&size=1")).map((n) => n.id)).to.deep.equal([welcome.id]);
    expect(await myNotifications(user.token, "page=2&size=1")).to.deep.equal([]);
    expect((await api("GET", "/api/notifications?size=101", { token: user.token })).status).to.equal(400);
    expect((await api("GET", "/api/notifications?unread=maybe", { token: user.token })).status).to.equal(400);
  });

  it("answers 401 without a token", async () => {
    expect((await api("GET", "/api/notifications")).status).to.equal(401);
  });
});

describe("Notification: PUT /api/notifications/{notificationId}/read", function () {
  this.timeout(60_000);

  it("marks the owner's notification read: unread=true leaves it out, and a second mark is 200 too", async () => {
    const user = await registeredUser("reader");
    const { welcome, signIn } = await welcomeAndSignIn(user);
    const first = await markRead(welcome.id, user.token);
    expect(first.status, first.text).to.equal(200);
    expect(first.body).to.deep.equal({ message: "notification marked as read" });
    const unread = await myNotifications(user.token, "unread=true");
    expect(unread.map((n) => n.id)).to.deep.equal([signIn.id]);
    const every = await myNotifications(user.token);
    expect(every.find((n) => n.id === welcome.id)?.read).to.equal(true);
    const again = await markRead(welcome.id, user.token);
    expect(again.status, again.text).to.equal(200);
    expect((await myNotifications(user.token, "unread=true")).map((n) => n.id)).to.deep.equal([signIn.id]);
  });

  it("answers 403 for another user's notification and leaves it unread; 404 for an unknown id", async () => {
    const owner = await registeredUser("owner");
    const other = await registeredUser("other");
    const { welcome } = await welcomeAndSignIn(owner);
    const foreign = await markRead(welcome.id, other.token);
    expect(foreign.status, foreign.text).to.equal(403);
    expect(foreign.body).to.include({ status: 403, code: "PERMISSION_DENIED" });
    expect((await myNotifications(owner.token, "unread=true")).map((n) => n.id)).to.include(welcome.id);
    const unknown = await markRead("ntf_doesNotExist0000000", owner.token);
    expect(unknown.status, unknown.text).to.equal(404);
    expect(unknown.body).to.deep.equal({ status: 404, code: "NOT_FOUND", message: "notification not found" });
    expect((await api("PUT", `/api/notifications/${welcome.id}/read`)).status).to.equal(401);
  });
});

describe("Notification: GET /api/notifications/all", function () {
  this.timeout(60_000);

  it("shows an admin everyone's notifications with userEmail; a customer gets 403", async () => {
    const user = await registeredUser("listed");
    const { welcome } = await welcomeAndSignIn(user);
    const admin = await adminLogin();
    const listed = await awaitOwnedNotification(admin, `${user.email}'s welcome`, (n) => n.id === welcome.id);
    expect(listed).to.deep.equal({ ...welcome, userEmail: user.email });
    expect(Object.keys(listed).sort()).to.deep.equal([
      "eventType",
      "id",
      "message",
      "read",
      "timestamp",
      "userEmail",
    ]);
    expect(await allNotifications(admin, "page=0&size=1")).to.have.length(1);
    const refused = await api("GET", "/api/notifications/all", { token: user.token });
    expect(refused.status, refused.text).to.equal(403);
    expect(refused.body).to.include({ status: 403, code: "PERMISSION_DENIED" });
  });

  it("tells the admin about PRODUCT_CREATED", async () => {
    const name = uniqueLabel("Notified Product");
    await createdProduct({ name, price: 249.99, stock: 10 });
    const admin = await adminLogin();
    const adminEmail = acceptanceEnvironment().adminEmail.toLowerCase();
    const notice = await awaitOwnedNotification(
      admin,
      `PRODUCT_CREATED for ${name}`,
      (n) =>
        n.eventType === "PRODUCT_CREATED" && n.userEmail === adminEmail && n.message.includes(`"${name}"`),
    );
    expect(notice.message).to.match(
      new RegExp(
        `^New product "${name}" \\(SKU [A-Z]{1,4}-[0-9A-Z]{8}\\) was added at ₹249\\.99 with 10 in stock\\.$`,
      ),
    );
    const own = await awaitMyNotification(admin, `PRODUCT_CREATED for ${name}`, (n) => n.id === notice.id);
    expect(own.read).to.equal(false);
  });
});
