// Issue 25: the keyed engine API's tests (search, documents, keys, settings) and the licence's
// again, every server they start on the PostgreSQL store (a private cluster, a database per data
// dir: LEIDEX_TEST_POSTGRES in helpers/server.ts). The same behaviour is asked of both stores;
// the two tests that read or write state.db themselves skip.

import t from "tap";
import { spawn } from "node:child_process";
import { POSTGRES_MISSING, privatePostgres } from "./helpers/postgres.js";
import { ROOT } from "./helpers/server.js";

const FILES = [
  "test/engine-search.test.ts",
  "test/engine-multi-search.test.ts",
  "test/engine-documents.test.ts",
  "test/hardening-keyed-work.test.ts",
  "test/engine-keys.test.ts",
  "test/engine-scoped-keys.test.ts",
  "test/hardening-keys.test.ts",
  "test/engine-synonyms-presets-stopwords.test.ts",
  "test/license.test.ts",
];

t.test("the key, settings and licence tests pass on the PostgreSQL store", { skip: POSTGRES_MISSING }, async (t) => {
  const cluster = await privatePostgres(t);
  const run = spawn(process.execPath, [`${ROOT}/node_modules/tap/dist/esm/run.mjs`, "--reporter=tap", ...FILES], {
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
  t.equal(passedFiles, FILES.length, "every file ran and passed");
  t.match(out, /# SKIP it reads or writes state\.db itself/, "the state.db tests say why they skip");
});
