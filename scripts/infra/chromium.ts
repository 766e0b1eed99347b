/**
 * The browser the tests drive: Debian's `chromium`, unpacked into the per-user cache instead of
 * installed, as ClickHouse is (debian-packages.ts). Playwright's own browser download is not an
 * option: it fetches builds from outside the package registries the project uses.
 *
 * Debian's `/usr/bin/chromium` is a shell wrapper (sourcing /etc/chromium.d, which the artifact
 * does not have) over the real binary `/usr/lib/chromium/chromium`; we start the real binary
 * with the environment it needs and pass our flags ourselves (scripts/testing/browser.ts):
 *   - `LD_LIBRARY_PATH` on the unpacked libraries, including PulseAudio's private folder, which
 *     libpulse finds through a RUNPATH that names the system's path;
 *   - `FONTCONFIG_FILE` on a configuration of ours that sees only the fonts of the artifact
 *     (Liberation, metric-compatible with Arial, Times and Courier, and DejaVu), so that text
 *     renders, and renders the same, whatever fonts a machine has.
 * Debian updates Chromium with its security releases and drops the old ones, so no release line
 * is pinned: an artifact keeps the version it was built with; emptying the cache updates it.
 */
import type { ArtifactOptions } from "../cache/cached-artifact.js";
import { join } from "node:path";
import { ensureDebianPackages } from "./debian-packages.js";

const fontsConfigName = "fonts.conf";

/** What CSS's generic families and the fonts pages commonly name resolve to. */
const fontFamilies: Readonly<Record<string, readonly string[]>> = {
  "Liberation Sans": ["sans-serif", "Arial", "Helvetica"],
  "Liberation Serif": ["serif", "Times New Roman", "Times"],
  "Liberation Mono": ["monospace", "Courier New", "Courier"],
};

/**
 * Fontconfig's configuration: the artifact's fonts only (`prefix="relative"`: the folder is
 * found beside this file, wherever the cache is), the families above as aliases, and Liberation
 * Sans last for every request (Chromium asks for its system font, CSS `system-ui`, by no
 * family at all; fontconfig would pick any font).
 */
const fontsConfig = `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <dir prefix="relative">root/usr/share/fonts</dir>
${Object.entries(fontFamilies)
  .flatMap(([font, names]) =>
    names.map(
      (name) =>
        `  <alias binding="same"><family>${name}</family><prefer><family>${font}</family></prefer></alias>`,
    ),
  )
  .join("\n")}
  <match target="pattern"><edit name="family" mode="append_last"><string>Liberation Sans</string></edit></match>
</fontconfig>
`;

/** Everything needed to start the browser. */
export interface ChromiumRuntime {
  /** The Debian version of the package, e.g. "156.0.8078.108-1~deb12u1". */
  readonly version: string;
  /** The browser's real binary (not Debian's wrapper script). */
  readonly executable: string;
  /** The environment the binary needs besides ours: libraries and fonts. */
  readonly env: Readonly<Record<string, string>>;
}

/** Returns the browser, installing it into the cache first if it is not there yet. */
export async function ensureChromium(options: ArtifactOptions = {}): Promise<ChromiumRuntime> {
  const chromium = await ensureDebianPackages(
    {
      name: "chromium",
      purpose: "Chromium",
      // chromium-common holds the binary's resources (locales, ICU data, .pak files).
      // DejaVu covers the symbols Liberation lacks (✓, arrows), which Chromium falls back to.
      packages: ["chromium", "chromium-common", "fonts-liberation", "fonts-dejavu-core"],
      binary: "usr/lib/chromium/chromium",
      libraryDirs: ["usr/lib/x86_64-linux-gnu/pulseaudio"],
      files: { [fontsConfigName]: fontsConfig },
    },
    options,
  );
  return {
    version: chromium.version,
    executable: chromium.binary,
    env: { ...chromium.env, FONTCONFIG_FILE: join(chromium.dir, fontsConfigName) },
  };
}
