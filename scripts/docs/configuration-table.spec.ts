/**
 * docs/configuration.md lists every setting the platform's processes read, from their
 * declarations: the committed table is the generated one, every declared setting is in it, the
 * environment is read through declarations only, and each process reads only the settings
 * declared for it (its reader refuses any other, which each process is started here to show).
 */
import { expect } from "chai";
import { execFile, execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { authSettings } from "@commerce/auth";
import { loadEmbeddedConfig } from "@commerce/embedded";
import {
  ConfigError,
  EnvReader,
  serverSettings,
  isSetting,
  serviceProcesses,
  type Setting,
} from "@commerce/runtime/config";
import { serviceTrustEnvironment } from "@commerce/runtime/identity";
import { deployableServices } from "../cluster/service-catalog.js";
import {
  configurationGuideWithTable,
  readConfigurationGuide,
  readersOf,
  renderConfigurationTable,
} from "./configuration-table.js";
import { settingsCatalog } from "./settings-catalog.js";

const root = join(import.meta.dirname, "..", "..");

/** Production sources of the services and the embedded platform (no specs, no test support). */
function productionSources(): string[] {
  return execFileSync(
    "git",
    ["ls-files", "--cached", "--others", "--exclude-standard", "services/*/src/**.ts", "embedded/src/**.ts"],
    {
      cwd: root,
      encoding: "utf8",
    },
  )
    .split("\n")
    .filter((path) => path !== "" && !/\.(spec|contract)\.ts$|\/testing\//.test(path));
}

/** Every variable of the catalog set to a value no reader accepts as it is, so each reports it. */
const everySettingInvalid = Object.fromEntries(settingsCatalog.map(({ name }) => [name, "?"]));

/** Runs an entry point with every setting invalid: it must read them all, then exit 2 saying why. */
function runWithInvalidSettings(entry: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", join(root, entry)],
      {
        cwd: root,
        env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", ...everySettingInvalid },
        timeout: 60_000,
      },
      (error, _stdout, stderr) =>
        resolve({ code: error === null ? 0 : (error.code as number | null), stderr }),
    );
  });
}

describe("docs/configuration.md's table of settings", () => {
  it("is the one the declarations give (run `npm run docs:config` after changing them)", async () => {
    const guide = await readConfigurationGuide();
    expect(
      (await configurationGuideWithTable(guide)) === guide,
      "docs/configuration.md's table is stale",
    ).to.equal(true);
  });

  it("has a row per setting: its default or what unset means, the processes that read it, its meaning", () => {
    const table = renderConfigurationTable();
    expect(table).to.include(
      "| `PORT` | `8080` | embedded, every service, web, `analytics:rebuild` | Listen port",
    );
    expect(table).to.include(
      "| `JWT_SECRET` | generated in embedded mode; required | embedded, auth | HS512 key",
    );
    expect(table).to.include("| `CORS_MAX_AGE` | `10m` | embedded, Envoy | How long a browser");
    expect(table).to.include(
      "| `ORDER_SERVICE_URL` | required | product, payment, notification | The Order service's address",
    );
    expect(table.split("\n")).to.have.length(settingsCatalog.length + 2);
  });
});

describe("the settings' declarations", () => {
  it("are all in the catalog the table is made from, each variable once", async () => {
    const declaring = productionSources().filter(
      (path) =>
        !path.endsWith("config/setting.ts") &&
        readFileSync(join(root, path), "utf8").includes("declareSettings("),
    );
    expect(declaring).to.not.deep.equal([]);
    const declared: Setting[] = [];
    for (const path of declaring) {
      const module = (await import(join(root, path))) as Record<string, unknown>;
      for (const exported of Object.values(module)) {
        if (typeof exported === "object" && exported !== null)
          declared.push(...Object.values(exported).filter(isSetting));
      }
    }
    // Imported here by path, a module is another instance than the catalog's: compare contents.
    const catalogued = new Set(settingsCatalog.map((setting) => JSON.stringify(setting)));
    const missing = declared.filter((setting) => !catalogued.has(JSON.stringify(setting)));
    expect(missing.map(({ name }) => name)).to.deep.equal([]);
    expect(declared).to.have.length(settingsCatalog.length);
    const names = settingsCatalog.map(({ name }) => name);
    expect(names.filter((name, index) => names.indexOf(name) !== index)).to.deep.equal([]);
  });

  it("are the only way production code reads the environment", () => {
    const reading = productionSources().filter((path) =>
      /process\.env\s*(\[|\.|\?\.)/.test(readFileSync(join(root, path), "utf8")),
    );
    expect(reading).to.deep.equal([]);
  });

  it("bind a process's reader: a setting not declared for that process is refused", () => {
    const env = { JWT_SECRET: "a".repeat(64) };
    expect(new EnvReader(env, { process: "auth" }).string(authSettings.JWT_SECRET)).to.equal(env.JWT_SECRET);
    expect(() => new EnvReader(env, { process: "web" }).string(authSettings.JWT_SECRET)).to.throw(
      "JWT_SECRET is not declared as read by the web process",
    );
    expect(new EnvReader(env).string(authSettings.JWT_SECRET), "a reader of no process").to.equal(
      env.JWT_SECRET,
    );
    expect(readersOf(serverSettings.PORT)).to.equal("embedded, every service, web, `analytics:rebuild`");
  });

  it("cover everything the embedded platform reads", () => {
    const secrets = { value: (_name: string, generate: () => string) => generate() };
    expect(() => loadEmbeddedConfig(everySettingInvalid, "/srv", () => secrets))
      .to.throw(ConfigError)
      .with.property("message")
      .that.includes('PORT must be a port number from 0 to 65535, got "?"');
  });

  const entries = [
    ...deployableServices.map(({ name, entry }) => ({ name, entry: entry.replace(/\.js$/, ".ts") })),
    { name: "analytics:rebuild", entry: "services/analytics/src/rebuild/main.ts" },
  ];
  for (const { name, entry } of entries) {
    it(`cover everything the ${name} process reads: it reports bad settings, not an undeclared one`, async function () {
      this.timeout(90_000);
      const { code, stderr } = await runWithInvalidSettings(entry);
      expect(stderr).to.include("invalid configuration");
      expect(stderr).to.include('PORT must be a port number from 0 to 65535, got "?"');
      expect(code, stderr).to.equal(2);
    });
  }

  it("give each process of the topology what the topology hands it beyond what every service gets", () => {
    const everyService = (setting: Setting): boolean =>
      serviceProcesses.every((name) => setting.readBy.includes(name));
    for (const service of deployableServices) {
      const declared = settingsCatalog
        .filter((setting) => setting.readBy.includes(service.name) && !everyService(setting))
        .map(({ name }) => name);
      // Its own credentials (ADR 0105): what the topology derives for it.
      const trust = Object.keys(serviceTrustEnvironment(service.name, { edgeSecret: "e", peerSecret: "p" }));
      const given = [...service.owns, ...Object.keys(service.peers), ...trust];
      expect(declared.sort(), service.name).to.deep.equal(given.sort());
    }
  });
});
