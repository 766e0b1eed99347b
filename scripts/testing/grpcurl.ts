/**
 * grpcurl, the gRPC client the service-port suite uses as an outside client would: it knows
 * nothing of our .proto files and learns the schema from the port's server reflection. Built
 * from its Go module into the project's cache (scripts/cache/cached-artifact.ts).
 */
import { join } from "node:path";
import { ensureArtifact, type ArtifactOptions } from "../cache/cached-artifact.js";
import { runGo } from "../cache/go-command.js";

export const grpcurlVersion = "v1.9.4";

/** The path of the cached grpcurl binary, building it first if the cache has none. */
export async function ensureGrpcurl(options: ArtifactOptions = {}): Promise<string> {
  // The version its release build stamps in (otherwise `grpcurl -version` and its user agent
  // say "dev build <no version set>").
  const ldflags = `-s -w -X main.version=${grpcurlVersion}`;
  const tool = await ensureArtifact(
    {
      name: `grpcurl-${grpcurlVersion}`,
      inputs: [ldflags],
      build: async (dir) => {
        const command = `github.com/fullstorydev/grpcurl/cmd/grpcurl@${grpcurlVersion}`;
        await runGo(["install", "-ldflags", ldflags, command], { cwd: dir, env: { GOBIN: dir } });
      },
    },
    options,
  );
  return join(tool.dir, "grpcurl");
}
