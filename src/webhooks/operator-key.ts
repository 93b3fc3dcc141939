// The operator key (area C): administers tenants, their keys and inbound routes, and reports mail
// events. Given with --operator-key, or generated on the first start, stored in
// <data-dir>/operator-key (mode 0600) and printed once in full, like the bootstrap key.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomKey } from "../keys/bootstrap.js";

export const OPERATOR_PREFIX = "lxo_";

export function operatorKey(given: string | null, dataDir: string): { value: string; banner: string } {
  if (given) return { value: given, banner: "operator key: the one given with --operator-key" };
  const path = join(dataDir, "operator-key");
  try {
    const value = readFileSync(path, "utf8").trim();
    if (value) return { value, banner: `operator key: ${value.slice(0, OPERATOR_PREFIX.length + 4)}… (kept in ${path})` };
  } catch {
    // first start
  }
  mkdirSync(dataDir, { recursive: true });
  const value = randomKey(OPERATOR_PREFIX);
  writeFileSync(path, `${value}\n`, { mode: 0o600, flag: "wx" });
  return { value, banner: `operator key (shown once, kept in ${path}): ${value}` };
}
