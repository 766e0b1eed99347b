import { expect } from "chai";
import { canMove, orderStatuses, type OrderStatus } from "./order-status.js";

describe("canMove", () => {
  const allowed = new Set(["CREATED→CONFIRMED", "CONFIRMED→CANCELLED"]);
  for (const from of orderStatuses) {
    for (const to of orderStatuses) {
      const expected = allowed.has(`${from}→${to}`);
      it(`${expected ? "allows" : "refuses"} ${from} → ${to}`, () => {
        expect(canMove(from, to)).to.equal(expected);
      });
    }
  }

  it("never leaves CANCELLED", () => {
    expect(orderStatuses.filter((to: OrderStatus) => canMove("CANCELLED", to))).to.deep.equal([]);
  });
});
