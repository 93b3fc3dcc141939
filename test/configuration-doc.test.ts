// docs/configuration.md's flag table against src/config/cli.ts: every flag the server takes is
// documented with its environment variable, and the table lists no flag the server lacks.

import t from "tap";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { flagNames } from "../src/config/cli.js";
import { ROOT } from "./helpers/server.js";

const doc = readFileSync(join(ROOT, "docs/configuration.md"), "utf8");
const rows = [...doc.matchAll(/^\| `--([a-z-]+)` \| (?:`(LEIDEX_[A-Z_]+)`)? \|/gm)].map((m) => ({ flag: m[1], env: m[2] ?? "" }));

t.test("every flag is in the table, with its variable", async (t) => {
  const flags = flagNames();
  t.ok(flags.length >= 20, `${flags.length} flags`);
  for (const { flag, env } of flags) {
    t.same(
      rows.find((r) => r.flag === flag),
      { flag, env },
      `--${flag} (${env}) documented`,
    );
  }
});

t.test("the table lists no flag the server lacks", async (t) => {
  const known = new Set([...flagNames().map((f) => f.flag), "help"]);
  t.same(
    rows.filter((r) => !known.has(r.flag)).map((r) => r.flag),
    [],
    "every row is a real flag",
  );
  t.same(rows.length, new Set(rows.map((r) => r.flag)).size, "each flag once");
});
