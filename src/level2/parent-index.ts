// Each entity's current parents, handed from the Level 2 build to the Level 1 records on the
// loader thread: sorted LEIs as base-36 halves and the parents' bytes, never a string per entity.

import { base36 } from "./keys.js";

const LEI_HALF = 10;

/** Each entity's current (not INACTIVE) direct and ultimate parent, by the entity's LEI. */
export class ParentIndex {
  constructor(
    private readonly hi: Float64Array,
    private readonly lo: Float64Array,
    /** 20 bytes per entity; zeros where it has no such parent */
    readonly direct: Uint8Array,
    readonly ultimate: Uint8Array,
  ) {}

  static readonly EMPTY = new ParentIndex(new Float64Array(0), new Float64Array(0), new Uint8Array(0), new Uint8Array(0));

  /** The entity's slot, -1 when it has no parent; the LEI at bytes[start, start + 20) */
  find(bytes: Uint8Array, start: number): number {
    if (this.hi.length === 0) return -1; // loaded without Level 2: no work per record
    const hi = base36(bytes, start, LEI_HALF),
      lo = base36(bytes, start + LEI_HALF, LEI_HALF);
    let a = 0,
      b = this.hi.length;
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (this.hi[mid] < hi || (this.hi[mid] === hi && this.lo[mid] < lo)) a = mid + 1;
      else b = mid;
    }
    return a < this.hi.length && this.hi[a] === hi && this.lo[a] === lo ? a : -1;
  }
}
