// Writes paced to the disk. A load writes gigabytes (document files, segments, the change
// feed's tables), and the kernel lets a tenth of RAM sit dirty before it writes any back, then
// writes it all at once, at the next fsync at the latest. A front thread reading a stored
// document that is not in the page cache then waits behind that flood, its event loop stopped
// with it: 0.6–0.7 s at the registry's size on the bench box. A writer that syncs every
// PACE_BYTES keeps what it leaves dirty small, so such a read waits behind one chunk at most.
// Syncing holds only the writing thread: a shard worker or the loader, never the front.

import { fdatasyncSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";

export const PACE_BYTES = 16 << 20;

/** Counts the bytes written to a file and syncs them every PACE_BYTES. */
export class WritePacer {
  private since = 0;

  constructor(private readonly fd: number) {}

  wrote(bytes: number): void {
    this.since += bytes;
    if (this.since < PACE_BYTES) return;
    this.since = 0;
    fdatasyncSync(this.fd);
  }
}

/** Writes all of `bytes` at `position`, synced every PACE_BYTES; `pace` carries the count between calls. */
export async function writePaced(fh: FileHandle, bytes: Buffer, position: number, pace: { since: number }): Promise<void> {
  let done = 0;
  while (done < bytes.length) {
    const { bytesWritten } = await fh.write(bytes, done, Math.min(bytes.length - done, PACE_BYTES), position + done);
    done += bytesWritten;
    pace.since += bytesWritten;
    if (pace.since >= PACE_BYTES) {
      pace.since = 0;
      await fh.datasync();
    }
  }
}
