// Native code this server derives at run time (the adapted uWebSockets.js addon) is kept in a
// cache directory of its own, never under the installation, which may be read-only and owned by
// another user. Main sets LEIDEX_CACHE_DIR to <data-dir>/cache before anything loads; a process
// started otherwise (a bench) uses $XDG_CACHE_HOME/leidex or ~/.cache/leidex.
//
// A file loaded into the process is checked first: the directory and the file belong to this
// user and nobody else can write them, and the file's SHA-256 is the one recorded beside it when
// it was written from an original whose SHA-256 is recorded too. Anything else is written anew.

import { createHash } from "node:crypto";
import { closeSync, fstatSync, lstatSync, mkdirSync, readFileSync, type Stats } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { StartupError } from "../config/startup-error.js";
import { openToRead } from "./fd-io.js";
import { writeFileAtomically } from "../store/durable-file.js";

export function nativeCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.LEIDEX_CACHE_DIR) return resolve(env.LEIDEX_CACHE_DIR);
  return join(env.XDG_CACHE_HOME ? resolve(env.XDG_CACHE_HOME) : join(homedir(), ".cache"), "leidex");
}

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/** owned by this user (or root), writable by no one else */
function trusted(stats: Stats): boolean {
  const uid = process.getuid?.() ?? 0;
  return (stats.uid === uid || stats.uid === 0) && (stats.mode & 0o022) === 0;
}

/** the file's bytes when it is a regular file only this user can change, else null */
function readTrusted(path: string): Buffer | null {
  const fd = openToRead(path);
  if (fd === null) return null;
  try {
    const stats = fstatSync(fd);
    return stats.isFile() && trusted(stats) ? readFileSync(fd) : null;
  } finally {
    closeSync(fd);
  }
}

/**
 * The path of `name` in the cache directory, holding `derive(original)`: the file there when its
 * checks pass, else written anew. Throws when the directory is writable by others.
 */
export function cachedDerivative(name: string, originalPath: string, derive: (original: Buffer) => Buffer, dir = nativeCacheDir()): string {
  // the data directory (or another parent) as any other start makes it; the cache itself private
  mkdirSync(dirname(dir), { recursive: true });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stats = lstatSync(dir);
  if (!stats.isDirectory() || !trusted(stats))
    throw new StartupError(
      `the cache directory ${dir} is not a directory that only this user can write: native code is not loaded from it`,
    );
  const original = readFileSync(originalPath);
  const expected = sha256(original);
  const path = join(dir, name);
  const sidePath = `${path}.sha256`;
  const side = readTrusted(sidePath)?.toString("utf8").trim().split(/\s+/);
  const written = readTrusted(path);
  if (side?.length === 2 && side[0] === expected && written !== null && sha256(written) === side[1]) return path;
  const derived = derive(original);
  // the side file goes last: until it names this copy, a later start writes the copy again
  writeFileAtomically(path, derived, 0o644);
  writeFileAtomically(sidePath, `${expected} ${sha256(derived)}\n`, 0o644);
  return path;
}
