// Small files that must be whole or absent after a crash: written to a temporary name beside the
// target, synced, renamed over it, and the directory synced so that the rename itself survives.

import { closeSync, fsyncSync, openSync, renameSync, rmSync } from "node:fs";
import { writeFully } from "../os/fd-io.js";
import { randomBytes } from "node:crypto";
import { basename, dirname, join } from "node:path";

export function writeFileAtomically(path: string, content: string | Uint8Array, mode = 0o600): void {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    const fd = openSync(temp, "wx", mode);
    try {
      const bytes = typeof content === "string" ? Buffer.from(content) : content;
      writeFully(fd, bytes, 0, bytes.length, 0);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  const dir = openSync(dirname(path), "r");
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
