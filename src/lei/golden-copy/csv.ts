// Streaming RFC 4180 reader for the golden copy: byte chunks in, rows out, flat memory however
// large the file. A row is a set of field byte ranges over the current buffer; only the columns
// a caller asks for are ever decoded, which matters with 338 columns of which we read ~30.

const QUOTE = 0x22, COMMA = 0x2c, LF = 0x0a, CR = 0x0d;

const MAX_FIELDS = 4096;
/** `"","","","",` as three little-endian words */
const EMPTY4_A = 0x222c2222, EMPTY4_B = 0x22222c22, EMPTY4_C = 0x2c22222c;

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
    const starts = this.starts, ends = this.ends, escaped = this.escaped;
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

export class CsvReader {
  private pending: Buffer = Buffer.alloc(0);
  private first = true;
  private readonly row = new CsvRow();
  rows = 0;

  constructor(private readonly onRow: (row: CsvRow) => void) {}

  push(chunk: Buffer): void {
    let buf = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    if (this.first && buf.length >= 3) {
      this.first = false;
      if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3);
    }
    const consumed = this.parse(buf, false);
    this.pending = Buffer.from(buf.subarray(consumed));
  }

  end(): void {
    if (this.pending.length > 0) this.parse(this.pending, true);
    this.pending = Buffer.alloc(0);
  }

  /** Parses complete rows; returns the offset after the last one. */
  private parse(buf: Buffer, final: boolean): number {
    const end = buf.length;
    const row = this.row;
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    let pos = 0;
    let rowStart = 0;
    while (pos < end) {
      rowStart = pos;
      row.buf = buf;
      row.length = 0;
      if (buf[pos] === LF || buf[pos] === CR) { pos++; continue; } // blank line
      for (;;) {
        let fieldEnd: number;
        // Four empty fields at once, `"","","","",` read as three words: most of the golden
        // copy's 338 columns are empty, and a byte at a time this loop was the loader's largest cost.
        while (pos + 12 <= end && view.getUint32(pos, true) === EMPTY4_A && view.getUint32(pos + 4, true) === EMPTY4_B && view.getUint32(pos + 8, true) === EMPTY4_C) {
          row.pushEmpty4(pos);
          pos += 12;
        }
        if (buf[pos] === QUOTE && pos + 2 < end && buf[pos + 1] === QUOTE && buf[pos + 2] !== QUOTE) {
          // "" : one empty field
          row.push(pos + 1, pos + 1, false);
          pos += 2;
        } else if (buf[pos] === QUOTE) {
          const start = pos + 1;
          let p = start;
          let escaped = false;
          for (;;) {
            const q = buf.indexOf(QUOTE, p);
            if (q < 0) {
              if (final) throw new CsvError(`unterminated quoted field in row ${this.rows + 1}`);
              return rowStart;
            }
            if (q + 1 >= end && !final) return rowStart;
            if (buf[q + 1] === QUOTE) { escaped = true; p = q + 2; continue; }
            fieldEnd = q;
            pos = q + 1;
            break;
          }
          row.push(start, fieldEnd, escaped);
        } else {
          const start = pos;
          while (pos < end && buf[pos] !== COMMA && buf[pos] !== LF && buf[pos] !== CR) pos++;
          if (pos >= end && !final) return rowStart;
          row.push(start, pos, false);
        }
        if (pos >= end) {
          if (!final) return rowStart;
          break;
        }
        const c = buf[pos];
        if (c === COMMA) { pos++; continue; }
        if (c === CR) pos++;
        if (pos < end && buf[pos] === LF) pos++;
        else if (c !== CR) throw new CsvError(`unexpected character after quoted field in row ${this.rows + 1}`);
        break;
      }
      this.rows++;
      this.onRow(row);
    }
    return end;
  }
}
