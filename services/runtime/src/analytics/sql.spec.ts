import { expect } from "chai";
import { Sql, identifier, joinSql, sql, sqlList, type SqlValue } from "./sql.js";

describe("sql", () => {
  it("writes strings with quote, backslash and control characters escaped, other characters as they are", () => {
    expect(sql`SELECT ${"it's \\ é 😀 \n\t\u0000\u007f"}`.text).to.equal(
      "SELECT 'it\\'s \\\\ é 😀 \\x0a\\x09\\x00\\x7f'",
    );
  });

  it("writes numbers exactly, negative ones in parentheses so that no `--` comment can form", () => {
    expect(
      sql`a-${-1} ${0.5} ${-0} ${2n ** 63n - 1n} ${-(2n ** 63n)} ${true} ${false} ${null}`.text,
    ).to.equal("a-(-1) 0.5 0 9223372036854775807 (-9223372036854775808) 1 0 NULL");
  });

  it("writes a Date as a UTC DateTime in whole seconds", () => {
    expect(sql`${new Date("2024-05-01T10:20:30.999Z")}`.text).to.equal(
      "toDateTime('2024-05-01 10:20:30', 'UTC')",
    );
  });

  it("inserts fragments and identifiers as they are", () => {
    const where = sql`status = ${"PAID"}`;
    expect(sql`SELECT * FROM ${identifier("order_events")} WHERE ${where}`.text).to.equal(
      "SELECT * FROM `order_events` WHERE status = 'PAID'",
    );
  });

  it("refuses what it cannot write exactly", () => {
    const refused: unknown[] = [
      undefined,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      2 ** 53,
      -(2 ** 53),
      "lone \ud800 surrogate",
      "\udc00",
      new Date(Number.NaN),
      new Date("1970-01-01T00:00:00Z"),
      new Date("2106-02-07T06:28:16Z"),
      ["a"],
      { a: 1 },
    ];
    for (const value of refused) {
      expect(() => sql`${value as SqlValue}`, String(value)).to.throw(TypeError);
    }
  });

  it("writes a list of values for IN, refusing an empty one, and joins fragments", () => {
    expect(sql`x IN ${sqlList(["a'b", 2, new Date("2024-05-01T00:00:00Z")])}`.text).to.equal(
      "x IN ('a\\'b', 2, toDateTime('2024-05-01 00:00:00', 'UTC'))",
    );
    expect(() => sqlList([])).to.throw(TypeError, "at least one");
    expect(() => sqlList([undefined as unknown as SqlValue])).to.throw(TypeError);
    expect(joinSql([sql`a = ${1}`, sql`b = ${-2}`], sql` OR `).text).to.equal("a = 1 OR b = (-2)");
  });

  it("accepts only plain names as identifiers", () => {
    for (const name of ["a b", "a`b", "a;b", "1a", "", "db.table", "ünï"]) {
      expect(() => identifier(name), name).to.throw(TypeError);
    }
    expect(identifier("_Order_2").text).to.equal("`_Order_2`");
  });

  it("cannot be made from a string outside its module", () => {
    expect(() => new Sql(Symbol("Sql") as never, "DROP TABLE x")).to.throw(TypeError);
  });
});
