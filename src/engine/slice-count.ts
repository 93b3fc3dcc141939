// How many slices a generation is cut into. Every search asks each slice, and each slice pays a
// fixed share per query (its dictionary walk and typo expansion, its top-k, a message each way),
// so slices beyond what the data needs spend CPU on fan-out; too few make a broad query's work on
// one thread long. By default the front keeps a core of its own, and the data gets one more slice
// for every RECORDS_PER_SLICE, up to one per shard thread. `--shards N` fixes the count at N.

/** Records one slice may hold before the data takes another slice, when threads allow. */
export const RECORDS_PER_SLICE = 2_000_000;
/** Average CSV bytes of a golden-copy record: GLEIF's Level 1 file and the bundled sample both hold about 1,200. */
export const CSV_BYTES_PER_RECORD = 1_200;

export interface SlicePlan {
  /** shard worker threads: the most slices a generation can have */
  threads: number;
  /** every generation has exactly `threads` slices (`--shards` given) */
  fixed: boolean;
}

/** Slices for a load of about `records` records (null: not known). */
export function slicesFor(plan: SlicePlan, records: number | null): number {
  if (plan.fixed) return plan.threads;
  const forFront = plan.threads - 1;
  const forData = Math.ceil((records ?? 0) / RECORDS_PER_SLICE);
  return Math.min(plan.threads, Math.max(1, forFront, forData));
}

/** Whether a generation persisted with `slices` slices can be served as it is. */
export function servesSlices(plan: SlicePlan, slices: number): boolean {
  return plan.fixed ? slices === plan.threads : slices >= 1 && slices <= plan.threads;
}

/** A load's record count, best known first: the publication's own count, else the CSV's size. */
export function expectedRecords(announced: number | null, csvBytes: number | null): number | null {
  if (announced !== null) return announced;
  return csvBytes === null ? null : Math.round(csvBytes / CSV_BYTES_PER_RECORD);
}
