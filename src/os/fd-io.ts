// Reads and writes that finish: readSync and writeSync may move fewer bytes than asked, so each
// loops until all are moved (a read that finds the file's end first throws).

import { openSync, readSync, writeSync } from "node:fs";

/** Reads `length` bytes at `position` into `into` from `offset` on; `what` names the file in the error. */
export function readFully(fd: number, into: Uint8Array, offset: number, length: number, position: number, what = "file"): void {
  for (let done = 0; done < length;) {
    const n = readSync(fd, into, offset + done, length - done, position + done);
    if (n === 0) throw new Error(`${what} ended early`);
    done += n;
  }
}

/** A descriptor of `path` opened for reading; null when it cannot be (none there, no access). */
export function openToRead(path: string): number | null {
  try {
    return openSync(path, "r");
  } catch {
    return null;
  }
}

/** Writes bytes[start, end) at `position`, or at the file's current offset when it is null. */
export function writeFully(fd: number, bytes: Uint8Array, start = 0, end = bytes.length, position: number | null = null): void {
  for (let done = start; done < end;) done += writeSync(fd, bytes, done, end - done, position === null ? null : position + done - start);
}
