// A table of fixed-width rows on disk, sorted by their leading key bytes, read on demand: the
// Level 2 data (millions of ISIN pairs, relationship and exception rows) stays in files and the
// page cache, never in JavaScript objects. Beside `<name>` lies `<name>.idx`, the key of every
// STRIDE-th row, which the reader keeps in memory: a lookup is a binary search there and one
// read of STRIDE rows.

import { closeSync, fstatSync, fsyncSync, openSync, readFileSync } from "node:fs";
import { readFully, writeFully } from "../os/fd-io.js";
import { WritePacer } from "../os/write-pacing.js";
import { writeFileAtomically } from "../store/durable-file.js";

export const STRIDE = 64;
const WRITE_CHUNK = 1 << 20;

/** Writes rows in key order (the caller sorts), and the sparse index beside them. */
export class SortedTableWriter {
  private readonly fd: number;
  private readonly chunk: Buffer;
  private used = 0;
  private readonly index: Buffer[] = [];
  private rows = 0;
  private readonly pacer: WritePacer;

  constructor(
    private readonly path: string,
    readonly rowWidth: number,
    private readonly keyWidth: number,
  ) {
    this.fd = openSync(path, "w");
    this.pacer = new WritePacer(this.fd);
    this.chunk = Buffer.allocUnsafe(Math.max(WRITE_CHUNK - (WRITE_CHUNK % rowWidth), rowWidth));
  }

  /** Room for the next row: fill `rowWidth` bytes at the returned offset of `buffer`, then call it again or finish(). */
  next(): { buffer: Buffer; at: number } {
    if (this.used + this.rowWidth > this.chunk.length) this.flush();
    const at = this.used;
    this.used += this.rowWidth;
    this.rows++;
    return { buffer: this.chunk, at };
  }

  /** Appends the whole rows src[start, end) as they are (end - start a multiple of the row width). */
  append(src: Uint8Array, start: number, end: number): void {
    while (start < end) {
      if (this.used === this.chunk.length) this.flush();
      // the chunk holds whole rows, and so does what is free of it
      const n = Math.min(end - start, this.chunk.length - this.used);
      this.chunk.set(src.subarray(start, start + n), this.used);
      this.used += n;
      this.rows += n / this.rowWidth;
      start += n;
    }
  }

  /** Writes what is left and syncs both files; the number of rows. */
  finish(): number {
    this.flush();
    fsyncSync(this.fd);
    closeSync(this.fd);
    writeFileAtomically(`${this.path}.idx`, Buffer.concat(this.index), 0o666);
    return this.rows;
  }

  private flush(): void {
    // the index keeps the key of each STRIDE-th row: read back from the chunk before it is reused
    const first = this.rows - this.used / this.rowWidth;
    for (let r = first; r < this.rows; r++) {
      if (r % STRIDE !== 0) continue;
      const at = (r - first) * this.rowWidth;
      this.index[r / STRIDE] = Buffer.from(this.chunk.subarray(at, at + this.keyWidth));
    }
    writeFully(this.fd, this.chunk, 0, this.used);
    this.pacer.wrote(this.used);
    this.used = 0;
  }
}

export class SortedTable {
  private constructor(
    private readonly fd: number,
    private readonly index: Buffer,
    readonly rowWidth: number,
    private readonly keyWidth: number,
    readonly rows: number,
  ) {}

  /** Opens a table written by SortedTableWriter; throws when its files disagree. */
  static open(path: string, rowWidth: number, keyWidth: number): SortedTable {
    const index = readFileSync(`${path}.idx`);
    const fd = openSync(path, "r");
    try {
      const size = fstatSync(fd).size;
      const rows = size / rowWidth;
      if (!Number.isInteger(rows) || index.length !== Math.ceil(rows / STRIDE) * keyWidth) {
        throw new Error(`table ${path} is damaged: ${size} bytes of rows, ${index.length} bytes of index`);
      }
      return new SortedTable(fd, index, rowWidth, keyWidth, rows);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  close(): void {
    closeSync(this.fd);
  }

  /** The first row whose leading bytes are `key`, read with the search: null when there is none. */
  find(key: Buffer): Buffer | null {
    const n = key.length;
    const first = this.blockBefore(key, false);
    if (first < 0) {
      // key sorts before every block's first key: it can only be row 0
      if (this.rows === 0) return null;
      const row = this.read(0, 1);
      return row.compare(key, 0, n, 0, n) === 0 ? row : null;
    }
    const block = this.read(first, Math.min(STRIDE, this.rows - first));
    for (let at = 0; at < block.length; at += this.rowWidth) {
      const cmp = block.compare(key, 0, n, at, at + n);
      if (cmp === 0) return block.subarray(at, at + this.rowWidth);
      if (cmp > 0) break;
    }
    // the match, if any, is the next block's first row, whose key is in the index
    const next = first + STRIDE;
    if (next >= this.rows || this.index.compare(key, 0, n, (next / STRIDE) * this.keyWidth, (next / STRIDE) * this.keyWidth + n) !== 0)
      return null;
    return this.read(next, 1);
  }

  /** The first row of the last block whose first key sorts before key (`strict`: not after it); -1 when none does. */
  private blockBefore(key: Buffer, strict: boolean): number {
    const width = this.keyWidth,
      n = key.length;
    let lo = 0,
      hi = this.index.length / width;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const cmp = this.index.compare(key, 0, n, mid * width, mid * width + n);
      if (strict ? cmp <= 0 : cmp < 0) lo = mid + 1;
      else hi = mid;
    }
    return (lo - 1) * STRIDE;
  }

  /** The first row whose first key.length bytes are ≥ key (`strict`: > key); `rows` when there is none. */
  bound(key: Buffer, strict = false): number {
    const n = key.length;
    const before = (cmp: number): boolean => (strict ? cmp <= 0 : cmp < 0);
    const first = this.blockBefore(key, strict);
    if (first < 0) return 0;
    const block = this.read(first, Math.min(STRIDE, this.rows - first));
    for (let r = 0; r * this.rowWidth < block.length; r++) {
      const at = r * this.rowWidth;
      if (!before(block.compare(key, 0, n, at, at + n))) return first + r;
    }
    return first + block.length / this.rowWidth;
  }

  /**
   * A reader of the rows of keys asked in ascending order (ordered()'s rowsOf): for the tens of
   * thousands of LEIs a delta touches, a read per window of rows instead of three per key.
   */
  ordered(): OrderedRows {
    return new OrderedRows(this, (key) => Math.max(0, this.blockBefore(key, false)));
  }

  /** Rows [first, first + count), clipped to the table, as one buffer. */
  read(first: number, count: number): Buffer {
    const out = Buffer.allocUnsafe(Math.max(0, Math.min(count, this.rows - first)) * this.rowWidth);
    return out.subarray(0, this.readInto(first, count, out) * this.rowWidth);
  }

  /** Rows [first, first + count), clipped to the table, into `into` from its start; the rows read. */
  readInto(first: number, count: number, into: Buffer): number {
    const n = Math.max(0, Math.min(count, this.rows - first));
    readFully(this.fd, into, 0, n * this.rowWidth, first * this.rowWidth, "Level 2 table");
    return n;
  }
}

/** Bytes an ordered reader reads at once: many keys' rows when they lie close, one read when they do not. */
const WINDOW_BYTES = 128 << 10;

/**
 * The rows of keys in ascending order, from a window of the table read at once and kept while
 * the keys stay in it. A key's rows are those whose leading key.length bytes are the key. The
 * window is one buffer, read into again and again: a fresh one each time would cost the first
 * touch of every page of it, more than the read.
 */
export class OrderedRows {
  private readonly window: Buffer;
  /** the window holds rows [first, end) */
  private first = 0;
  private end = 0;
  private readonly windowRows: number;

  constructor(
    private readonly table: SortedTable,
    /** the first row of the block the key's rows can begin in */
    private readonly blockStart: (key: Buffer) => number,
  ) {
    this.windowRows = Math.max(STRIDE, Math.floor(WINDOW_BYTES / table.rowWidth / STRIDE) * STRIDE);
    this.window = Buffer.allocUnsafe(this.windowRows * table.rowWidth);
  }

  /** The rows of `key`, as a buffer of their own; null when it has none. */
  rowsOf(key: Buffer): Buffer | null {
    const rows = this.table.rows;
    // the first row not before the key: in the key's block (a window never splits one), or the next block's first
    let lo = this.blockStart(key),
      hi = Math.min(lo + STRIDE, rows);
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compareAt(mid, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    const from = lo;
    let r = lo;
    while (r < rows && this.compareAt(r, key) === 0) r++;
    if (r === from) return null;
    if (from >= this.first && r <= this.end)
      return Buffer.from(this.window.subarray((from - this.first) * this.table.rowWidth, (r - this.first) * this.table.rowWidth));
    return this.table.read(from, r - from);
  }

  /** Row r's key against `key`, as Buffer.compare orders them; loads the window holding r. */
  private compareAt(r: number, key: Buffer): number {
    if (r < this.first || r >= this.end) {
      this.first = r - (r % STRIDE);
      this.end = this.first + this.table.readInto(this.first, this.windowRows, this.window);
    }
    const at = (r - this.first) * this.table.rowWidth;
    return this.window.compare(key, 0, key.length, at, at + key.length);
  }
}
