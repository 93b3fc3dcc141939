// A column's values (code -> display value, code 0 "no value") in the slice's shared memory: UTF-8
// bytes and their offsets, placed once by the thread that opens the slice. So a slice's share is
// a handful of numbers, whatever the column holds. A parent column holds a value per parent LEI,
// hundreds of thousands at the registry's size, and as a list of strings it was cloned into every
// message that shares the slice and out of it again on every thread: over 100 ms on the sending
// thread for each worker and front thread, at every load and delta. A thread reads a value when
// it needs it, and keeps it.

/** Where a column's values lie in the slice's memory. */
export interface ColumnValuesPlace {
  /** values, "no value" (code 0) included */
  count: number;
  /** u32 per value and one more: where each value's bytes start */
  offsAt: number;
  textAt: number;
}

/** Places `values` (code 0 null, every other a string) with `alloc`, in the memory `buffer()` gives once it holds them. */
export function placeColumnValues(
  values: readonly (string | null)[],
  alloc: (bytes: number) => number,
  buffer: () => SharedArrayBuffer,
): ColumnValuesPlace {
  if (values[0] !== null) throw new Error("a column's code 0 is no value");
  let bytes = 0;
  for (let code = 1; code < values.length; code++) {
    const v = values[code];
    if (typeof v !== "string") throw new Error(`a column's value ${code} is not a string`);
    bytes += Buffer.byteLength(v);
  }
  const offsAt = alloc((values.length + 1) * 4);
  const textAt = alloc(Math.max(bytes, 1));
  const memory = buffer();
  const offs = new Uint32Array(memory, offsAt, values.length + 1);
  const text = Buffer.from(memory, textAt, bytes);
  let at = 0;
  offs[0] = 0;
  offs[1] = 0;
  for (let code = 1; code < values.length; code++) {
    at += text.write(values[code]!, at);
    offs[code + 1] = at;
  }
  return { count: values.length, offsAt, textAt };
}

/** One thread's reader of a column's placed values. */
export class ColumnValues {
  readonly length: number;
  private readonly offs: Uint32Array;
  private readonly text: Buffer;
  /** the values read so far, by code */
  private readonly read: (string | undefined)[];

  constructor(memory: SharedArrayBuffer, place: ColumnValuesPlace) {
    this.length = place.count;
    this.offs = new Uint32Array(memory, place.offsAt, place.count + 1);
    this.text = Buffer.from(memory, place.textAt, this.offs[place.count]);
    this.read = new Array<string | undefined>(place.count);
  }

  /** The value of `code`: null for code 0, "no value". */
  at(code: number): string | null {
    if (code === 0) return null;
    let v = this.read[code];
    if (v === undefined) {
      v = this.text.toString("utf8", this.offs[code], this.offs[code + 1]);
      this.read[code] = v;
    }
    return v;
  }

  /** The codes of the values `keep` takes, in code order. */
  codesWhere(keep: (value: string | null) => boolean): number[] {
    const codes: number[] = [];
    for (let code = 0; code < this.length; code++) if (keep(this.at(code))) codes.push(code);
    return codes;
  }
}
