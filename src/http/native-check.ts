// uWebSockets.js silently falls back to a slow pure-JS server when its native binary does not
// load. We load the binary ourselves first, so that the fallback is never silent.

import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export function nativeUwsProblem(): string | null {
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve("uWebSockets.js/package.json"));
  const binary = join(root, "binaries", `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`);
  try {
    require(binary);
    return null;
  } catch (err) {
    return `native uWebSockets.js binary did not load (${binary}): ${(err as Error).message}`;
  }
}
