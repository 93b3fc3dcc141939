// Secrets the server makes for itself: random keys, and the admin keys (bootstrap, operator)
// that are given on the command line or generated on the first start, stored in the data dir
// with mode 0600 and printed once in full; later starts print only a prefix and where it is.

import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { StartupError } from "../config/startup-error.js";
import { writeFileAtomically } from "./durable-file.js";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export function randomKey(prefix: string, length = 32): string {
  const bytes = randomBytes(length * 2);
  let out = prefix;
  // rejection sampling keeps every character equally likely
  for (let i = 0; i < bytes.length && out.length < prefix.length + length; i++) if (bytes[i] < 248) out += ALPHABET[bytes[i] % 62];
  return out.length === prefix.length + length ? out : randomKey(prefix, length);
}

export interface PersistedKey {
  value: string;
  banner: string;
}

export interface KeyFile {
  /** file name in the data dir */
  file: string;
  prefix: string;
  /** how the log names it, e.g. "bootstrap API key" */
  label: string;
  /** the flag that gives it instead */
  flag: string;
}

export function persistedKey(given: string | null, dataDir: string, k: KeyFile): PersistedKey {
  if (given) return { value: given, banner: `${k.label}: the one given with ${k.flag}` };
  const path = join(dataDir, k.file);
  const kept = readKeyFile(path, k.label);
  if (kept) return { value: kept, banner: `${k.label}: ${kept.slice(0, k.prefix.length + 4)}… (kept in ${path})` };
  mkdirSync(dataDir, { recursive: true });
  const value = randomKey(k.prefix);
  // whole or absent after a crash: an empty file was what a crash between create and write left
  writeFileAtomically(path, `${value}\n`);
  const banner = `${k.label} (shown once, kept in ${path}): ${value}`;
  return { value, banner: kept === "" ? `${path} was empty (a start interrupted while writing it?): a new ${banner}` : banner };
}

/** The key in the file; "" for an empty or blank file, which counts as absent; null for no file. */
function readKeyFile(path: string, label: string): string | null {
  try {
    return readFileSync(path, "utf8").trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new StartupError(
      `cannot read the ${label} in ${path}: ${(err as Error).message}; fix its permissions or remove it to have a new key generated`,
    );
  }
}
