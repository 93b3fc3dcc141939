// Runs test files again with every server they start on the PostgreSQL store: a private cluster,
// a database per data dir (LEIDEX_TEST_POSTGRES in helpers/server.ts). The same behaviour is
// asked of both stores.

import { spawn } from "node:child_process";
import { privatePostgres } from "./postgres.js";
import { ROOT } from "./server.js";

interface Asserts {
  same(found: unknown, wanted: unknown, message?: string): void;
  equal(found: unknown, wanted: unknown, message?: string): void;
}

/** Runs `files` under tap on a fresh cluster; asserts that every file ran and passed. Returns tap's output. */
export async function rerunOnPostgres(t: Asserts & Parameters<typeof privatePostgres>[0], files: string[]): Promise<string> {
  const cluster = await privatePostgres(t);
  const run = spawn(process.execPath, [`${ROOT}/node_modules/tap/dist/esm/run.mjs`, "--reporter=tap", ...files], {
    cwd: ROOT,
    env: { ...process.env, LEIDEX_TEST_POSTGRES: cluster.url },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  run.stdout.on("data", (d: Buffer) => (out += d.toString()));
  run.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => run.on("exit", resolve));
  const failed = out.split("\n").filter((l) => /^\s*not ok /.test(l));
  t.same(failed, [], "no assertion failed");
  t.equal(code, 0, "tap exits 0");
  const passedFiles = out.split("\n").filter((l) => /^ok \d+ - test\//.test(l)).length;
  t.equal(passedFiles, files.length, "every file ran and passed");
  return out;
}
