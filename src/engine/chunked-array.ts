// Append-only typed arrays for the builder, in fixed chunks: a build appends hundreds of
// millions of values whose count it learns only at the end.

/**
 * An append-only array in fixed chunks: no doubling, so no copy and no unused half at the end,
 * and a chunk is never larger than the allocator returns to the system when it is freed.
 */
export class ChunkedArray<T extends Uint8Array | Uint16Array | Uint32Array | Float64Array> {
  private static readonly SHIFT = 16;
  private static readonly MASK = (1 << ChunkedArray.SHIFT) - 1;
  private readonly chunks: T[] = [];
  length = 0;
  constructor(protected make: (n: number) => T) {}
  push(v: number): void {
    const at = this.length & ChunkedArray.MASK;
    if (at === 0) this.chunks.push(this.make(1 << ChunkedArray.SHIFT));
    this.chunks[this.chunks.length - 1][at] = v;
    this.length++;
  }
  get(i: number): number {
    return this.chunks[i >>> ChunkedArray.SHIFT][i & ChunkedArray.MASK];
  }
  /** One contiguous copy, after `before`'s values when given; the chunks are let go. */
  toArray(before?: T): T {
    const from = before?.length ?? 0;
    const out = this.make(from + this.length);
    if (before !== undefined) out.set(before);
    return this.into(out, from);
  }
  /** The values copied into `out` from index `from` on (`out` has room for them), and `out`; the chunks are let go. */
  into(out: T, from: number): T {
    this.chunks.forEach((chunk, c) =>
      out.set(chunk.subarray(0, Math.min(chunk.length, this.length - (c << ChunkedArray.SHIFT))), from + (c << ChunkedArray.SHIFT)),
    );
    this.release();
    return out;
  }
  /** Lets the chunks go: the builder is done with them. */
  release(): void {
    this.chunks.length = 0;
  }
  /** After `make` changed: the chunk being filled is copied into one of the new kind. */
  protected remakeOpenChunk(): void {
    if ((this.length & ChunkedArray.MASK) === 0) return; // the next push starts a new chunk
    const open = this.chunks[this.chunks.length - 1];
    const remade = this.make(open.length);
    remade.set(open);
    this.chunks[this.chunks.length - 1] = remade;
  }
}

type Codes = Uint8Array | Uint16Array | Uint32Array;
const CODE_WIDTHS: readonly { max: number; make: (n: number) => Codes }[] = [
  { max: 0xff, make: (n) => new Uint8Array(n) },
  { max: 0xffff, make: (n) => new Uint16Array(n) },
  { max: 0xffffffff, make: (n) => new Uint32Array(n) },
];

/**
 * A column's per-doc codes, in chunks only as wide as its codes so far: most columns have a few
 * hundred values at most, so a doc costs them one byte, not four. Chunks filled before a wider
 * code arrived stay narrow.
 */
export class CodeChunks extends ChunkedArray<Codes> {
  private width = 0;
  constructor() {
    super(CODE_WIDTHS[0].make);
  }
  override push(code: number): void {
    if (code > CODE_WIDTHS[this.width].max) {
      while (code > CODE_WIDTHS[this.width].max) this.width++;
      this.make = CODE_WIDTHS[this.width].make;
      this.remakeOpenChunk();
    }
    super.push(code);
  }
}

/** A copy of `array` with room for at least `need` elements: half as much again, so growth copies little. */
export function grown<T extends Uint8Array | Uint16Array | Uint32Array>(array: T, need: number): T {
  const next = new (array.constructor as new (n: number) => T)(Math.max(need, Math.ceil(array.length * 1.5)));
  next.set(array);
  return next;
}
