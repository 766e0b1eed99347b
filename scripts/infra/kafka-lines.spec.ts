/**
 * Both Kafka release lines we run start from their own cached jars, log through their own
 * logging framework, and serve a client: the 4.x line everything runs (the Kafka suites cover the
 * rest of it) and 3.9, kept for the order-cost bench's deployment from before issue 42 (ADR 0120).
 */
import { expect } from "chai";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Kafka, logLevel } from "kafkajs";
import { correctKafkaJsRequestQueue } from "@commerce/runtime/events";
import { startKafka, type KafkaInstance } from "./kafka.js";
import type { KafkaLine } from "./kafka-runtime.js";

/** The command line of a running process, its arguments joined by spaces. */
async function commandLineOf(pid: number): Promise<string> {
  const args = (await readFile(`/proc/${pid}/cmdline`, "utf8")).split("\0");
  return args.filter((arg) => arg !== "").join(" ");
}

const lines: readonly { readonly line: KafkaLine; readonly version: RegExp }[] = [
  { line: "4", version: /^4\.\d+\.\d+$/ },
  { line: "3.9", version: /^3\.9\.\d+$/ },
];

for (const { line, version } of lines) {
  describe(`startKafka({ line: "${line}" })`, function () {
    // A cold cache fetches the line's jars from Maven Central first.
    this.timeout(5 * 60_000);
    let scratch: string;
    let kafka: KafkaInstance;

    before(async () => {
      scratch = await mkdtemp(join(tmpdir(), `kafka-${line}-spec-`));
      kafka = await startKafka({ dataDir: join(scratch, "kafka"), line, log: () => undefined });
    });

    after(async () => {
      await kafka.stop();
      await rm(scratch, { recursive: true, force: true });
    });

    it(`runs a Kafka ${line} broker from that line's own jars`, async () => {
      expect(kafka.version).to.match(version);
      // The artifact is named after the version; its jars carry it too.
      const commandLine = await commandLineOf(kafka.pid);
      expect(commandLine).to.include(`/kafka-${kafka.version}-`);
      expect(commandLine).to.match(/ kafka\.Kafka \S+server\.properties$/);
    });

    it("logs through its logging framework: warnings, and the line of a finished start", async () => {
      const log = await readFile(join(scratch, "kafka", "kafka.log"), "utf8");
      expect(log).to.match(/^\[[\d-]+ [\d:,]+\] INFO \[KafkaRaftServer nodeId=1\] Kafka Server started /m);
      // WARN and above otherwise: no INFO line of any other logger.
      const infoLoggers = [...log.matchAll(/^\[[^\]]+\] INFO .* \(([\w.$]+)\)$/gm)].map((m) => m[1]);
      expect(new Set(infoLoggers)).to.deep.equal(new Set(["kafka.server.KafkaRaftServer"]));
      // Neither an SLF4J binding missing nor the logging framework complaining of its file.
      expect(log).to.not.match(/SLF4J|log4j:|StatusLogger|ERROR/);
    });

    it("answers metadata and takes a record into a topic a client created", async () => {
      correctKafkaJsRequestQueue();
      const client = new Kafka({
        clientId: "kafka-lines-spec",
        brokers: [kafka.brokers],
        logLevel: logLevel.NOTHING,
      });
      const admin = client.admin();
      const producer = client.producer({ allowAutoTopicCreation: false });
      await admin.connect();
      await producer.connect();
      try {
        expect(
          await admin.createTopics({ topics: [{ topic: "probe", numPartitions: 1 }], waitForLeaders: true }),
        ).to.equal(true);
        const metadata = await admin.fetchTopicMetadata({ topics: ["probe"] });
        expect(metadata.topics.map((t) => [t.name, t.partitions.length])).to.deep.equal([["probe", 1]]);
        const [sent] = await producer.send({
          topic: "probe",
          acks: -1,
          messages: [{ key: "k", value: "v" }],
        });
        expect(sent?.baseOffset).to.equal("0");
        const offsets = await admin.fetchTopicOffsets("probe");
        expect(offsets.map((o) => [o.partition, o.low, o.high])).to.deep.equal([[0, "0", "1"]]);
      } finally {
        await producer.disconnect();
        await admin.disconnect();
      }
    });
  });
}
