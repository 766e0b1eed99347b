import { expect } from "chai";
import razorpayUtils from "razorpay/dist/utils/razorpay-utils.js";
import { createSandboxGateway } from "./sandbox-gateway.js";
import {
  isValidPaymentSignature,
  isValidWebhookSignature,
  paymentSignature,
  webhookSignature,
} from "./signatures.js";

const { validatePaymentVerification, validateWebhookSignature } = razorpayUtils;
const keySecret = "key-secret-0123456789abcdef";
const webhookSecret = "webhook-secret-0123456789abcdef";
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe("Payment signatures", () => {
  const body = '{"provider_payment_id":"pay_A","provider_order_id":"order_B","provider_signature":"c"}';

  it("sign the webhook body exactly as the official razorpay package verifies it", () => {
    const signature = webhookSignature(bytes(body), webhookSecret);
    expect(validateWebhookSignature(body, signature, webhookSecret)).to.equal(true);
    expect(validateWebhookSignature(`${body} `, signature, webhookSecret)).to.equal(false);
    expect(validateWebhookSignature(body, signature, "another-secret-0123456789")).to.equal(false);
  });

  it("sign order|payment exactly as the official razorpay package verifies it", () => {
    const signature = paymentSignature("order_Kq3x9ZrT2mB7Lw", "pay_29QQoUBi66xm2f", keySecret);
    const payload = { order_id: "order_Kq3x9ZrT2mB7Lw", payment_id: "pay_29QQoUBi66xm2f" };
    expect(validatePaymentVerification(payload, signature, keySecret)).to.equal(true);
    expect(
      validatePaymentVerification({ ...payload, payment_id: "pay_other" }, signature, keySecret),
    ).to.equal(false);
  });

  it("verify the webhook signature of the raw bytes only; missing, wrong or malformed is refused", () => {
    const signature = webhookSignature(bytes(body), webhookSecret);
    expect(isValidWebhookSignature(bytes(body), signature, webhookSecret)).to.equal(true);
    expect(isValidWebhookSignature(bytes(body), signature.toUpperCase(), webhookSecret)).to.equal(true);
    expect(isValidWebhookSignature(bytes(body.replace("pay_A", "pay_Z")), signature, webhookSecret)).to.equal(
      false,
    );
    expect(isValidWebhookSignature(bytes(body), null, webhookSecret)).to.equal(false);
    expect(isValidWebhookSignature(bytes(body), "", webhookSecret)).to.equal(false);
    expect(isValidWebhookSignature(bytes(body), signature.slice(0, 63), webhookSecret)).to.equal(false);
    expect(isValidWebhookSignature(bytes(body), `${signature}00`, webhookSecret)).to.equal(false);
    expect(isValidWebhookSignature(bytes(body), "z".repeat(64), webhookSecret)).to.equal(false);
    expect(isValidWebhookSignature(bytes(body), signature, keySecret)).to.equal(false);
  });

  it("verify the payment signature against the given order and payment", () => {
    const signature = paymentSignature("order_A", "pay_B", keySecret);
    expect(isValidPaymentSignature("order_A", "pay_B", signature, keySecret)).to.equal(true);
    expect(isValidPaymentSignature("order_X", "pay_B", signature, keySecret)).to.equal(false);
    expect(isValidPaymentSignature("order_A", "pay_X", signature, keySecret)).to.equal(false);
    expect(isValidPaymentSignature("order_A", "pay_B", signature, webhookSecret)).to.equal(false);
  });
});

describe("Sandbox gateway", () => {
  const sandbox = createSandboxGateway({ keySecret, webhookSecret });
  const request = { amountMinor: 7996, currency: "INR", receipt: "pay_1", idempotencyKey: "pay_1" };

  it("opens Razorpay-shaped orders, the same one for the same idempotency key", async () => {
    const first = await sandbox.createOrder(request);
    expect(first.id).to.match(/^order_[0-9A-Za-z]{14}$/);
    expect(first).to.deep.include({ amountMinor: 7996, currency: "INR" });
    expect((await sandbox.createOrder(request)).id).to.equal(first.id);
    const restarted = createSandboxGateway({ keySecret, webhookSecret });
    expect((await restarted.createOrder(request)).id).to.equal(first.id);
    expect((await sandbox.createOrder({ ...request, idempotencyKey: "pay_2" })).id).to.not.equal(first.id);
  });

  it("checks out with callbacks that razorpay's own utilities verify (paid) or reject (declined)", async () => {
    const { id } = await sandbox.createOrder(request);
    for (const outcome of ["paid", "declined"] as const) {
      const callback = sandbox.checkout(id, outcome);
      expect(validateWebhookSignature(callback.body, callback.signature, webhookSecret)).to.equal(true);
      const fields = JSON.parse(callback.body) as Record<string, string>;
      expect(fields["provider_order_id"]).to.equal(id);
      expect(fields["provider_payment_id"])
        .to.equal(callback.providerPaymentId)
        .and.match(/^pay_[0-9A-Za-z]{14}$/);
      const verified = validatePaymentVerification(
        { order_id: id, payment_id: callback.providerPaymentId },
        fields["provider_signature"] ?? "",
        keySecret,
      );
      expect(verified, outcome).to.equal(outcome === "paid");
    }
  });
});
