// A filtered column's values to their codes (`city=Berlin` -> the code its docs carry), for one
// slice on one thread. A parent column holds a value per parent LEI, hundreds of thousands at the
// registry's size, and every thread that serves the slice (the main thread, each front thread,
// each shard worker) opens it when a load goes live: building its map in one go held each of
// them for a hundred milliseconds and more. So the map is filled a slice of values per
// event-loop turn after the slice opens, and until it is whole a lookup also scans the values
// not yet in it.

import type { ColumnValues } from "./column-values.js";
import { columnKey, type FilterParam } from "./schema.js";

type Values = Pick<ColumnValues, "length" | "at">;

/** Values added to a column's map in one event-loop turn: about a millisecond's work. */
const VALUES_PER_TURN = 4096;

export class ColumnCodes {
  private readonly byKey = new Map<string, number>();
  /** values[0, filled) are in byKey */
  private filled = 0;

  constructor(
    private readonly param: FilterParam,
    private readonly values: Values,
  ) {}

  /** The code of the value whose key (schema.ts columnKey) is `key`: of several, the last. */
  code(key: string): number | undefined {
    let code = this.byKey.get(key);
    for (let c = this.filled; c < this.values.length; c++) {
      const v = this.values.at(c);
      if (v !== null && columnKey(this.param, v) === key) code = c;
    }
    return code;
  }

  /** Whether every value is in the map. */
  get whole(): boolean {
    return this.filled === this.values.length;
  }

  /** Adds up to `n` more values to the map; how many it added. */
  fill(n: number): number {
    const end = Math.min(this.values.length, this.filled + n);
    for (let c = this.filled; c < end; c++) {
      const v = this.values.at(c);
      if (v !== null) this.byKey.set(columnKey(this.param, v), c);
    }
    const added = end - this.filled;
    this.filled = end;
    return added;
  }
}

/**
 * The codes of each column of a slice: each column's first VALUES_PER_TURN values mapped at once
 * (all of most columns: countries, statuses, legal forms), the rest of the larger ones
 * VALUES_PER_TURN values a turn from the next turn on.
 */
export function columnCodes(columns: readonly { param: FilterParam; values: Values }[]): ColumnCodes[] {
  const codes = columns.map(({ param, values }) => new ColumnCodes(param, values));
  const large: ColumnCodes[] = [];
  for (const c of codes) if (c.fill(VALUES_PER_TURN) === VALUES_PER_TURN && !c.whole) large.push(c);
  let next = 0;
  const turn = (): void => {
    let budget = VALUES_PER_TURN;
    while (next < large.length && budget > 0) {
      budget -= large[next].fill(budget);
      if (large[next].whole) next++;
    }
    if (next < large.length) setImmediate(turn).unref();
  };
  if (large.length > 0) setImmediate(turn).unref();
  return codes;
}
