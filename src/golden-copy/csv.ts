// Streaming RFC 4180 reader for the golden copy: byte chunks in, rows out, flat memory however
// large the file. A row is a set of field byte ranges over the current buffer; only the columns
// a caller asks for are ever decoded, which matters with 338 columns of which we read ~30.
// Linear time: rows are parsed in the chunk where they lie; a row cut by a chunk's end is carried
// into a buffer of its own, and its parse resumes where it stopped, never from the row's start
// (re-parsing made one long field quadratic). Fields and rows are capped (MAX_FIELD_BYTES,
// MAX_ROW_BYTES), so a hostile file is refused, not buffered.

const QUOTE = 0x22,
  COMMA = 0x2c,
  LF = 0x0a,
  CR = 0x0d;

const MAX_FIELDS = 4096;
/** `"","","","",` as three little-endian words */
const EMPTY4_A = 0x222c2222,
  EMPTY4_B = 0x22222c22,
  EMPTY4_C = 0x2c22222c;

export class CsvRow {
  buf: Buffer = Buffer.alloc(0);
  readonly starts = new Int32Array(MAX_FIELDS);
  readonly ends = new Int32Array(MAX_FIELDS);
  readonly escaped = new Uint8Array(MAX_FIELDS);
  length = 0;
  /** Field i as text; "" when the row is shorter. */
  field(i: number): string {
    if (i < 0 || i >= this.length || this.starts[i] === this.ends[i]) return "";
    const text = this.buf.toString("utf8", this.starts[i], this.ends[i]);
    return this.escaped[i] === 1 ? text.replaceAll('""', '"') : text;
  }
  /** Four empty quoted fields, the first one's opening quote at `at`. */
  pushEmpty4(at: number): void {
    const n = this.length;
    if (n + 4 > MAX_FIELDS) throw new CsvError(`a row has more than ${MAX_FIELDS} fields`);
    const starts = this.starts,
      ends = this.ends,
      escaped = this.escaped;
    starts[n] = ends[n] = at + 1;
    starts[n + 1] = ends[n + 1] = at + 4;
    starts[n + 2] = ends[n + 2] = at + 7;
    starts[n + 3] = ends[n + 3] = at + 10;
    escaped[n] = escaped[n + 1] = escaped[n + 2] = escaped[n + 3] = 0;
    this.length = n + 4;
  }
  push(start: number, end: number, escaped: boolean): void {
    if (this.length >= MAX_FIELDS) throw new CsvError(`a row has more than ${MAX_FIELDS} fields`);
    this.starts[this.length] = start;
    this.ends[this.length] = end;
    this.escaped[this.length++] = escaped ? 1 : 0;
  }
}

export class CsvError extends Error {}

/** The longest real golden-copy field is a few KB; a field this long is a broken or hostile file. */
export const MAX_FIELD_BYTES = 1 << 20;
/** A real row is ~1–6 KB over 338 columns. */
export const MAX_ROW_BYTES = 4 << 20;

const MiB = (n: number): string => `${n / (1 << 20)} MiB`;

/** Where the parse of a row cut by a chunk's end stopped. */
const ROW_START = 0,
  FIELD_START = 1,
  QUOTED = 2,
  UNQUOTED = 3;
type ParseState = typeof ROW_START | typeof FIELD_START | typeof QUOTED | typeof UNQUOTED;

export class CsvReader {
  /** the unfinished row's bytes, from its start, in a buffer grown by doubling */
  private carry: Buffer = Buffer.allocUnsafe(1 << 16);
  private carried = 0;
  private first = true;
  private readonly row = new CsvRow();
  /** the unfinished row: what was being parsed, from where (offsets into the carry) */
  private state: ParseState = ROW_START;
  private fieldStart = 0;
  private scanFrom = 0;
  private escaped = false;
  rows = 0;

  constructor(private readonly onRow: (row: CsvRow) => void) {}

  push(chunk: Buffer): void {
    if (this.first) {
      // the BOM check needs 3 bytes, which a first chunk may not hold
      this.append(chunk);
      if (this.carried < 3) return;
      this.first = false;
      const c = this.carry;
      if (c[0] === 0xef && c[1] === 0xbb && c[2] === 0xbf) {
        c.copyWithin(0, 3, this.carried);
        this.carried -= 3;
      }
      this.parseCarry(false);
    } else if (this.carried === 0 && this.state === ROW_START) {
      // the common case: parsed where it lies; only the tail of a row cut by the chunk's end is copied
      const rowStart = this.parse(chunk, false);
      this.carried = 0;
      this.append(chunk.subarray(rowStart));
      this.shiftRow(rowStart);
    } else {
      this.append(chunk);
      this.parseCarry(false);
    }
  }

  end(): void {
    if (this.carried > 0 || this.state !== ROW_START) this.parseCarry(true);
    this.carried = 0;
    this.state = ROW_START;
  }

  /** Parses the carried bytes (a view of exactly them: indexOf must not find stale bytes past them). */
  private parseCarry(final: boolean): void {
    const rowStart = this.parse(this.carry.subarray(0, this.carried), final);
    if (final) return;
    if (rowStart > 0) this.carry.copyWithin(0, rowStart, this.carried);
    this.carried -= rowStart;
    this.shiftRow(rowStart);
  }

  private append(chunk: Buffer): void {
    const need = this.carried + chunk.length;
    if (need > this.carry.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, this.carry.length * 2));
      this.carry.copy(grown, 0, 0, this.carried);
      this.carry = grown;
    }
    chunk.copy(this.carry, this.carried);
    this.carried = need;
  }

  /** The unfinished row moved `by` bytes towards the carry's start: its offsets move along. */
  private shiftRow(by: number): void {
    if (by === 0 || this.state === ROW_START) return;
    const row = this.row;
    for (let i = 0; i < row.length; i++) {
      row.starts[i] -= by;
      row.ends[i] -= by;
    }
    this.fieldStart -= by;
    this.scanFrom -= by;
  }

  /** Stops at a row cut by the end of buf: its state is kept; returns where that row starts. */
  private suspend(state: ParseState, rowStart: number, fieldStart: number, scanFrom: number, escaped: boolean, end: number): number {
    if (end - rowStart > MAX_ROW_BYTES) throw this.rowTooLong();
    this.state = state;
    this.fieldStart = fieldStart;
    this.scanFrom = scanFrom;
    this.escaped = escaped;
    return rowStart;
  }

  private fieldTooLong(): CsvError {
    return new CsvError(
      `row ${this.rows + 1} has a field longer than ${MiB(MAX_FIELD_BYTES)}, the limit (the golden copy's longest are a few KB)`,
    );
  }

  private rowTooLong(): CsvError {
    return new CsvError(`row ${this.rows + 1} is longer than ${MiB(MAX_ROW_BYTES)}, the limit (the golden copy's rows are a few KB)`);
  }

  /**
   * Parses buf: complete rows go to onRow; returns the offset of the row cut by its end (its
   * length when none is). A row carried over from the chunk before starts at 0 and resumes in the
   * state suspend() kept.
   */
  private parse(buf: Buffer, final: boolean): number {
    const end = buf.length;
    const row = this.row;
    row.buf = buf;
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    let pos = 0;
    let rowStart = 0;
    // resuming: a row (and maybe a field) cut by the last chunk's end
    let state = this.state;
    this.state = ROW_START;
    const resumeStart = this.fieldStart,
      resumeScan = this.scanFrom,
      resumeEscaped = this.escaped;
    if (state === FIELD_START) pos = resumeScan;
    while (pos < end || state !== ROW_START) {
      if (state === ROW_START) {
        rowStart = pos;
        row.length = 0;
        if (buf[pos] === LF || buf[pos] === CR) {
          pos++;
          continue;
        } // blank line
      }
      for (;;) {
        let fieldEnd: number;
        const resumed = state;
        state = FIELD_START;
        // a field that starts at the chunk's end: what it is (quoted or not) is in the next chunk
        if (pos >= end && resumed !== QUOTED && resumed !== UNQUOTED && !final)
          return this.suspend(FIELD_START, rowStart, pos, pos, false, end);
        if (
          resumed === QUOTED ||
          (resumed !== UNQUOTED && buf[pos] === QUOTE && !(pos + 2 < end && buf[pos + 1] === QUOTE && buf[pos + 2] !== QUOTE))
        ) {
          const start = resumed === QUOTED ? resumeStart : pos + 1;
          let p = resumed === QUOTED ? resumeScan : start;
          let escaped = resumed === QUOTED && resumeEscaped;
          for (;;) {
            const q = buf.indexOf(QUOTE, p);
            if (q < 0 || q >= end) {
              if (end - start > MAX_FIELD_BYTES) throw this.fieldTooLong();
              if (final) throw new CsvError(`unterminated quoted field in row ${this.rows + 1}`);
              return this.suspend(QUOTED, rowStart, start, end, escaped, end);
            }
            if (q + 1 >= end && !final) return this.suspend(QUOTED, rowStart, start, q, escaped, end);
            if (buf[q + 1] === QUOTE) {
              escaped = true;
              p = q + 2;
              continue;
            }
            fieldEnd = q;
            pos = q + 1;
            break;
          }
          if (fieldEnd - start > MAX_FIELD_BYTES) throw this.fieldTooLong();
          row.push(start, fieldEnd, escaped);
        } else if (resumed !== UNQUOTED && buf[pos] === QUOTE) {
          // "" : one empty field
          row.push(pos + 1, pos + 1, false);
          pos += 2;
        } else {
          const start = resumed === UNQUOTED ? resumeStart : pos;
          if (resumed === UNQUOTED) pos = resumeScan;
          while (pos < end && buf[pos] !== COMMA && buf[pos] !== LF && buf[pos] !== CR) pos++;
          if (pos - start > MAX_FIELD_BYTES) throw this.fieldTooLong();
          if (pos >= end && !final) return this.suspend(UNQUOTED, rowStart, start, pos, false, end);
          row.push(start, pos, false);
        }
        if (pos >= end) break; // the file's end: a field ending at a chunk's end suspended above
        const c = buf[pos];
        if (c === COMMA) {
          pos++;
          // Four empty fields at once, `"","","","",` read as three words: most of the golden
          // copy's 338 columns are empty, and a byte at a time this loop was the loader's largest cost.
          while (
            pos + 12 <= end &&
            view.getUint32(pos, true) === EMPTY4_A &&
            view.getUint32(pos + 4, true) === EMPTY4_B &&
            view.getUint32(pos + 8, true) === EMPTY4_C
          ) {
            row.pushEmpty4(pos);
            pos += 12;
          }
          continue;
        }
        if (c === CR) pos++;
        if (pos < end && buf[pos] === LF) pos++;
        else if (c !== CR) throw new CsvError(`unexpected character after quoted field in row ${this.rows + 1}`);
        break;
      }
      state = ROW_START;
      if (pos - rowStart > MAX_ROW_BYTES) throw this.rowTooLong();
      this.rows++;
      this.onRow(row);
    }
    return end;
  }
}
