/**
 * `npm run events:replay -- <group>` (in a deployment: `node
 * services/runtime/src/events/dead-letter-replay-main.js <group>`): replays the dead letters of
 * one consumer group to that group, once their cause is fixed (dead-letter-replay.ts, ADR 0111),
 * on the bus the environment selects, as the services' processes do: KAFKA_BROKERS, or the
 * embedded bus under DATA_DIR. The embedded bus belongs to one process at a time, so in
 * embedded mode stop the platform first (the group handles the replayed records once it runs
 * again); on Kafka the platform keeps running and handles them at once.
 *
 * Prints each dead letter it replays (id, type, the topic it came from, when and why it was
 * parked) and a last line of totals. Exit codes: 0 done (also with nothing to replay), 2 bad
 * arguments or settings, 1 any other failure.
 */
import { ConfigError, EnvReader, readBusSettings, readLogLevel } from "../config/index.js";
import { dataSettings } from "../config/process-settings.js";
import { pino } from "pino";
import { createLogger } from "../logging/logger.js";
import { replayDeadLetters, replayTopic } from "./dead-letter-replay.js";
import { deadLetterTopic } from "./dead-letter-publisher.js";
import { openPlatformBus } from "./platform-bus.js";
import { assertBusName } from "./publish-batch.js";

const usage = "usage: npm run events:replay -- <consumer group>   (e.g. order-service)";

/** Arguments the command cannot run with. */
class UsageError extends Error {
  override readonly name = "UsageError";
}

async function main(args: readonly string[]): Promise<void> {
  const [group, ...rest] = args;
  if (group === undefined || rest.length > 0 || group.startsWith("-")) throw new UsageError(usage);
  try {
    assertBusName("group", group);
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${usage}`);
  }
  const reader = new EnvReader(process.env, { process: "events-replay" });
  const logLevel = readLogLevel(reader);
  const dataDir = reader.path(dataSettings.DATA_DIR);
  const bus = readBusSettings(reader);
  reader.finish(undefined);
  // Its log on stderr: stdout is the report.
  const logger = createLogger(logLevel, "commerce-events-replay", pino.destination(2));
  const opened = await openPlatformBus({ infra: bus, dataDir, clientId: "commerce-events-replay", logger });
  try {
    const { replayed } = await replayDeadLetters({
      bus: opened,
      group,
      onReplayed: (record) => {
        const parked = record.deadLetter;
        process.stdout.write(
          `replayed ${record.id} (${record.type}) from ${parked?.topic ?? "?"}, parked ${parked?.time ?? "?"}: ${
            parked?.error ?? "no reason recorded"
          }\n`,
        );
      },
    });
    process.stdout.write(
      replayed === 0
        ? `${deadLetterTopic(group)} holds no dead letter that was not replayed already\n`
        : `replayed ${replayed} dead letter${replayed === 1 ? "" : "s"} of ${group} to ${replayTopic(group)}\n`,
    );
  } finally {
    await opened.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof UsageError) {
    process.stderr.write(`events:replay: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`events:replay: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
