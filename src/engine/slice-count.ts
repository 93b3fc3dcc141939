// How many slices a generation is cut into. Every shard worker serves every slice from one copy
// in shared memory, so a slice is not a thread's share: each search asks every slice, and each
// slice repeats a query's fixed work (its dictionary walk and typo expansion, its top-k, a
// message each way). One slice is cheapest per query, whatever the worker count; the data takes
// another slice only per RECORDS_PER_SLICE, which keeps a slice's memory well inside the 4 GiB a
// 32-bit WebAssembly memory can address. `--shards N` fixes the count at N.

/** Records one slice may hold before the data takes another slice. */
export const RECORDS_PER_SLICE = 8_000_000;
/** Average CSV bytes of a golden-copy record: GLEIF's Level 1 file and the bundled sample both hold about 1,200. */
export const CSV_BYTES_PER_RECORD = 1_200;

export interface SlicePlan {
  /** every generation has exactly this many slices (`--shards` given); null = sized to the data */
  fixed: number | null;
}

/** Slices for a load of about `records` records (null: not known). */
export function slicesFor(plan: SlicePlan, records: number | null): number {
  if (plan.fixed !== null) return plan.fixed;
  return Math.max(1, Math.ceil((records ?? 0) / RECORDS_PER_SLICE));
}

/** Whether a generation persisted with `slices` slices can be served as it is: any count can, unless fixed. */
export function servesSlices(plan: SlicePlan, slices: number): boolean {
  return plan.fixed !== null ? slices === plan.fixed : slices >= 1;
}

/** A load's record count, best known first: the publication's own count, else the CSV's size. */
export function expectedRecords(announced: number | null, csvBytes: number | null): number | null {
  if (announced !== null) return announced;
  return csvBytes === null ? null : Math.round(csvBytes / CSV_BYTES_PER_RECORD);
}
