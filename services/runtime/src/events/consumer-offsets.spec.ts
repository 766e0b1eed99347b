import { expect } from "chai";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openConsumerOffsets } from "./consumer-offsets.js";
import type { EventLogger } from "./event-logger.js";

describe("openConsumerOffsets", () => {
  let dir: string;
  let warnings: string[];
  const logger: EventLogger = {
    info: () => undefined,
    warn: (_fields, message) => warnings.push(message),
    error: () => undefined,
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "offsets-"));
    warnings = [];
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("keeps every group's position across a reopen, and the smallest per topic", async () => {
    const first = await openConsumerOffsets(dir, logger);
    await first.commit("billing", "orders", 3);
    await first.commit("billing", "orders", 5);
    await first.commit("analytics", "orders", 2);
    await first.commit("analytics", "payments", 9);
    await first.close();

    const second = await openConsumerOffsets(dir, logger);
    expect(second.get("billing", "orders")).to.equal(5);
    expect(second.get("analytics", "payments")).to.equal(9);
    expect(second.get("billing", "payments")).to.equal(undefined);
    expect(second.minCommitted("orders")).to.equal(2);
    expect(second.minCommitted("payments")).to.equal(9);
    expect(second.minCommitted("users")).to.equal(undefined);
    await second.close();
  });

  it("writes commits of one group and topic in call order", async () => {
    const offsets = await openConsumerOffsets(dir, logger);
    await Promise.all([1, 2, 3, 4].map((n) => offsets.commit("billing", "orders", n)));
    await offsets.close();

    expect(await readFile(join(dir, "billing", "orders.offsets"), "utf8")).to.equal("1\n2\n3\n4\n");
  });

  it("cuts a line torn by a crash and keeps the position before it", async () => {
    await mkdir(join(dir, "billing"));
    await writeFile(join(dir, "billing", "orders.offsets"), "0\n7\n1");
    const offsets = await openConsumerOffsets(dir, logger);

    expect(offsets.get("billing", "orders")).to.equal(7);
    expect(await readFile(join(dir, "billing", "orders.offsets"), "utf8")).to.equal("0\n7\n");
    await offsets.close();
  });

  it("rewrites the file to one line once it outgrows compactBytes", async () => {
    const offsets = await openConsumerOffsets(dir, logger, 8);
    for (let n = 1; n <= 10; n += 1) await offsets.commit("billing", "orders", n);
    await offsets.close();

    // Compacted at the first commit, then at 5 and 9 (after four 2-byte lines each time).
    expect(await readFile(join(dir, "billing", "orders.offsets"), "utf8")).to.equal("9\n10\n");
  });

  it("forgets an unreadable position with a warning and removes an interrupted compaction", async () => {
    await mkdir(join(dir, "billing"));
    await writeFile(join(dir, "billing", "orders.offsets"), "garbage\n");
    await writeFile(join(dir, "billing", "payments.offsets.tmp"), "4\n");
    const offsets = await openConsumerOffsets(dir, logger);

    expect(offsets.get("billing", "orders")).to.equal(undefined);
    expect(warnings).to.deep.equal([
      "embedded bus: unreadable consumer offset, the group restarts from the earliest record",
    ]);
    expect(await readdir(join(dir, "billing"))).to.deep.equal(["orders.offsets"]);
    await offsets.close();
  });
});
