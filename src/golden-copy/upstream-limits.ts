// What the server allows an upstream (GLEIF's APIs and storage, or a --source URL) before it gives
// up on a load: a metadata answer has a size cap and a total deadline; a download has a deadline
// sized from the bytes it announces, a size cap a margin past them, and must leave a floor of free
// disk on the data dir's file system for state.db. A load that breaks one fails with a clear
// SourceError and the live collection stays.

export { freeBytes } from "../store/disk-floor.js";

export interface UpstreamLimits {
  /** total seconds for one metadata call; also what a download gets before its size counts */
  apiSeconds: number;
  /** the slowest average a download may keep (bytes per second), after apiSeconds */
  minBytesPerSecond: number;
  /** free bytes a download (or an upload) must leave on the data dir's file system */
  diskFloorBytes: number;
}

export const DEFAULT_UPSTREAM_LIMITS: UpstreamLimits = {
  apiSeconds: 30,
  minBytesPerSecond: 128 * 1024,
  diskFloorBytes: 512 * 1024 * 1024,
};

/** A metadata answer is a few KB; past this it is not one. */
export const METADATA_MAX_BYTES = 1024 * 1024;

/** When neither the API nor Content-Length says how big a download is (the import's cap too). */
export const UNANNOUNCED_MAX_BYTES = 16 * 1024 * 1024 * 1024;

/** The most a download announced as `announced` bytes may run to: 10 % and 1 MiB past it. */
export function sizeCap(announced: number | null): number {
  if (announced === null) return UNANNOUNCED_MAX_BYTES;
  return Math.ceil(announced * 1.1) + 1024 * 1024;
}

/**
 * Seconds a download may have taken once `bytes` arrived of `expected` announced: apiSeconds,
 * plus the larger of the two at the slowest rate allowed. With nothing announced this is a
 * floor on the average rate so far, so a trickle fails too.
 */
export function downloadDeadlineSeconds(limits: UpstreamLimits, expected: number | null, bytes: number): number {
  return limits.apiSeconds + Math.max(expected ?? 0, bytes) / limits.minBytesPerSecond;
}

export function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
