// The free disk the data dir's file system keeps for state.db and the live collection
// (--disk-floor-mb): a download or an upload that would leave less is refused before it starts
// and stopped when it gets there, so a file coming in never fills the disk under the state.

import { statfsSync } from "node:fs";

/** The disk is full, or would be below the floor: the server's trouble (507), never the client's. */
export class DiskFullError extends Error {
  readonly code = "ENOSPC";
}

/** errno codes that mean the disk took no more */
const FULL_CODES = new Set(["ENOSPC", "EDQUOT"]);

export function isDiskFull(err: unknown): boolean {
  if (err instanceof DiskFullError) return true;
  const code = typeof err === "object" && err !== null && "code" in err ? String((err as { code: unknown }).code) : "";
  return FULL_CODES.has(code);
}

/** Free bytes on the file system that holds `dir` (for an unprivileged process); null when unknown. */
export function freeBytes(dir: string): number | null {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return null;
  }
}

let floorBytes = 0;

export const diskFloor = {
  /** set once at start-up from --disk-floor-mb */
  set(bytes: number): void {
    floorBytes = bytes;
  },
  get bytes(): number {
    return floorBytes;
  },
  /** Why `more` bytes may not be written under `dir` now, or null when they may. */
  refusal(dir: string, more: number): string | null {
    if (floorBytes === 0) return null;
    const free = freeBytes(dir);
    if (free === null || free - more >= floorBytes) return null;
    const mb = (n: number): string => `${Math.floor(n / (1024 * 1024))} MiB`;
    return `${mb(Math.max(free, 0))} free on the data dir's disk${more > 0 ? ` for ${mb(more)} more` : ""}, and ${mb(floorBytes)} must stay free (--disk-floor-mb)`;
  },
};
