// A column's values placed as a slice's are (engine/column-values.ts), in a memory of their own.

import { ColumnValues, placeColumnValues } from "../../src/engine/column-values.js";

/** A bump allocator, 16-aligned as the engine's, over a memory of its own. */
export function bump(): (bytes: number) => number {
  let top = 16;
  return (bytes) => {
    const at = top;
    top += Math.ceil(bytes / 16) * 16;
    return at;
  };
}

/** `values` placed in a new memory, and a reader of them. */
export function placed(values: (string | null)[]): ColumnValues {
  const memory = new SharedArrayBuffer(1 << 20);
  return new ColumnValues(
    memory,
    placeColumnValues(values, bump(), () => memory),
  );
}
