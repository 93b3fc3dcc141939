// The bootstrap key: every action on every collection. Given with --api-key, or generated on the
// first start, stored in <data-dir>/bootstrap-key (mode 0600) and printed once in full; later
// starts print only its prefix and where it is kept.

import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const BOOTSTRAP_PREFIX = "lxb_";
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export function randomKey(prefix: string, length = 32): string {
  const bytes = randomBytes(length * 2);
  let out = prefix;
  // rejection sampling keeps every character equally likely
  for (let i = 0; i < bytes.length && out.length < prefix.length + length; i++) if (bytes[i] < 248) out += ALPHABET[bytes[i] % 62];
  return out.length === prefix.length + length ? out : randomKey(prefix, length);
}

export interface Bootstrap { value: string; banner: string }

export function bootstrapKey(given: string | null, dataDir: string): Bootstrap {
  if (given) return { value: given, banner: "bootstrap API key: the one given with --api-key" };
  const path = join(dataDir, "bootstrap-key");
  try {
    const value = readFileSync(path, "utf8").trim();
    if (value) return { value, banner: `bootstrap API key: ${value.slice(0, BOOTSTRAP_PREFIX.length + 4)}… (kept in ${path})` };
  } catch {
    // first start
  }
  mkdirSync(dataDir, { recursive: true });
  const value = randomKey(BOOTSTRAP_PREFIX);
  writeFileSync(path, `${value}\n`, { mode: 0o600, flag: "wx" });
  return { value, banner: `bootstrap API key (shown once, kept in ${path}): ${value}` };
}
