// Prints the OpenAPI document of every route to stdout (`npm run --silent openapi`), from the
// wired app with a throw-away data directory: what a server serves at /openapi.json, without
// starting one. CI lints it with Redocly's recommended rules.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildApp } from "./app.js";
import { parseConfig } from "./config/cli.js";

const dataDir = mkdtempSync(join(tmpdir(), "leidex-openapi-"));
try {
  const config = parseConfig(["--data-dir", dataDir, "--shards", "1"], {});
  if (config === "help") throw new Error("unexpected --help");
  const app = await buildApp(config, () => {});
  try {
    process.stdout.write(`${JSON.stringify(app.openApi(), null, 2)}\n`);
  } finally {
    await app.close();
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
