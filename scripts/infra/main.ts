/**
 * `npm run infra:up` / `npm run infra:down`: the local real infrastructure of the tests
 * (ADR 0072), started by our own scripts on loopback. Idempotent both ways.
 *
 * `up` prints shell-sourceable `NAME=value` lines on stdout and nothing else (progress goes to
 * stderr), so `eval "$(npm run -s infra:up)"` sets the variables the tests read.
 */
import { createClickHouseComponent, readClickHouseInfraConfig } from "./clickhouse.js";
import { createFerretDbComponent } from "./ferretdb.js";
import type { InfraComponent } from "./infra-component.js";
import { readInfraConfig } from "./infra-config.js";
import { createJaegerComponent, readJaegerPorts } from "./jaeger.js";
import { shellAssignment } from "./shell-assignment.js";
import { createKafkaComponent, readKafkaInfraConfig } from "./kafka.js";

function logger(component: string): (message: string) => void {
  return (message) => process.stderr.write(`${component}: ${message}\n`);
}

function messageOf(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}

async function up(components: readonly InfraComponent[]): Promise<void> {
  const results = await Promise.allSettled(components.map((component) => component.up()));
  const failures = results.flatMap((result, i) =>
    result.status === "rejected" ? [`${components[i]?.name ?? "?"}: ${messageOf(result.reason)}`] : [],
  );
  if (failures.length > 0) throw new Error(failures.join("\n"));
  for (const result of results) {
    if (result.status !== "fulfilled") continue;
    for (const [name, value] of Object.entries(result.value)) {
      process.stdout.write(`${shellAssignment(name, value)}\n`);
    }
  }
}

async function down(components: readonly InfraComponent[]): Promise<void> {
  // Reverse order: consumers of a component stop before it.
  for (const component of [...components].reverse()) await component.down();
}

async function main(command: string | undefined): Promise<void> {
  const config = readInfraConfig(process.env);
  const components: readonly InfraComponent[] = [
    createFerretDbComponent(config, logger("ferretdb")),
    createKafkaComponent(config, readKafkaInfraConfig(process.env), logger("kafka")),
    createClickHouseComponent(config, readClickHouseInfraConfig(process.env), logger("clickhouse")),
    createJaegerComponent(config, readJaegerPorts(process.env), logger("jaeger")),
  ];
  switch (command) {
    case "up":
      return up(components);
    case "down":
      return down(components);
    default:
      process.stderr.write("usage: node --import tsx scripts/infra/main.ts up|down\n");
      process.exitCode = 2;
  }
}

main(process.argv[2]).catch((error: unknown) => {
  process.stderr.write(`infra: ${messageOf(error)}\n`);
  process.exitCode = 1;
});
