// Golden-copy CSV layout: the exact 338-column header of the real sample, every
// field quoted with RFC 4180 doubling, LF line ends. Rows are rendered from a
// column-name → value map into a precomputed template, because 300+ of the 338
// columns are empty in almost every row and need no per-row work.

import { existsSync } from "node:fs";
import { open } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** data/sample/real-sample.csv, found from either bench/ (sources) or dist/bench/ (compiled). */
export function defaultSamplePath(): string {
  const candidates = [path.resolve(HERE, "../data/sample/real-sample.csv"), path.resolve(HERE, "../../data/sample/real-sample.csv")];
  return candidates.find((p) => existsSync(p)) ?? candidates[1]!;
}

/** Reads the first line of the sample file, byte-exact, and splits it into column names. */
export async function readHeader(samplePath: string = defaultSamplePath()): Promise<{ line: string; names: string[] }> {
  const fh = await open(samplePath, "r");
  try {
    const buf = Buffer.alloc(64 * 1024);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const text = buf.subarray(0, bytesRead).toString("utf8");
    const end = text.indexOf("\n");
    if (end < 0) throw new Error(`no header line in the first 64 KiB of ${samplePath}`);
    const line = text
      .slice(0, end)
      .replace(/\r$/, "")
      .replace(/^\uFEFF/, "");
    const names = parseCsvLine(line);
    return { line, names };
  } finally {
    await fh.close();
  }
}

export function quote(value: string): string {
  return value.indexOf('"') < 0 ? `"${value}"` : `"${value.replace(/"/g, '""')}"`;
}

/** Parses one CSV record that holds no line breaks inside quotes (enough for headers and checks). */
export function parseCsvLine(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let value = "";
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) throw new Error("unterminated quoted field");
        value += line.slice(i, q);
        if (line[q + 1] === '"') {
          value += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      out.push(value);
      if (i < line.length && line[i] !== ",") throw new Error(`garbage after quoted field at ${i}`);
      i++;
    } else {
      const comma = line.indexOf(",", i);
      const end = comma < 0 ? line.length : comma;
      out.push(line.slice(i, end));
      i = end + 1;
    }
  }
  return out;
}

/**
 * A row renderer for a fixed set of columns that may carry values. Columns outside
 * the set are always `""`; the runs of empty columns between used ones are
 * precomputed strings.
 */
export class RowLayout {
  readonly columnCount: number;
  private readonly slotOf = new Map<string, number>();
  private readonly gaps: string[];
  private readonly gapBytes: Buffer[];
  /** Bytes of a row whose used columns are all empty. */
  readonly fixedBytes: number;

  constructor(header: readonly string[], usedColumns: readonly string[]) {
    this.columnCount = header.length;
    const positions = usedColumns.map((name) => {
      const at = header.indexOf(name);
      if (at < 0) throw new Error(`column not in header: ${name}`);
      return at;
    });
    const sorted = [...new Set(positions)].sort((a, b) => a - b);
    sorted.forEach((pos, slot) => this.slotOf.set(header[pos]!, slot));
    // gaps[k] is the text between used column k-1 and used column k, separators included.
    this.gaps = [];
    let prev = -1;
    for (const pos of sorted) {
      const empties = pos - prev - 1;
      let gap = prev < 0 ? "" : ",";
      for (let e = 0; e < empties; e++) gap += '"",';
      this.gaps.push(gap);
      prev = pos;
    }
    let tail = "";
    for (let e = prev + 1; e < header.length; e++) tail += ',""';
    this.gaps.push(tail + "\n");
    this.gapBytes = this.gaps.map((g) => Buffer.from(g, "utf8"));
    this.fixedBytes = this.gapBytes.reduce((n, b) => n + b.length, 0) + 2 * (this.gaps.length - 1);
  }

  slot(name: string): number {
    const s = this.slotOf.get(name);
    if (s === undefined) throw new Error(`column not in layout: ${name}`);
    return s;
  }

  get slots(): number {
    return this.gaps.length - 1;
  }

  /** Upper bound of the bytes render/renderInto produce for these values. */
  maxBytes(values: readonly string[]): number {
    let chars = 0;
    for (const v of values) chars += v.length;
    // A UTF-16 unit is at most 3 UTF-8 bytes, and quote doubling at most doubles it.
    return this.fixedBytes + chars * 6;
  }

  /**
   * Writes the row straight into `buf` at `pos` and returns the new position.
   * Writing bytes avoids building a rope string per row, which costs more in
   * garbage collection than the rendering itself. The caller guarantees room
   * (see maxBytes).
   */
  renderInto(buf: Buffer, pos: number, values: readonly string[]): number {
    const n = this.gapBytes.length - 1;
    for (let k = 0; k < n; k++) {
      const gap = this.gapBytes[k]!;
      gap.copy(buf, pos);
      pos += gap.length;
      const v = values[k] ?? "";
      buf[pos++] = 0x22;
      if (v.length > 0) pos += buf.write(v.indexOf('"') < 0 ? v : v.replace(/"/g, '""'), pos, "utf8");
      buf[pos++] = 0x22;
    }
    const tail = this.gapBytes[n]!;
    tail.copy(buf, pos);
    return pos + tail.length;
  }

  /** values[slot] for each used column; missing or empty values render as `""`. */
  render(values: readonly string[]): string {
    let out = "";
    const n = this.gaps.length - 1;
    for (let k = 0; k < n; k++) out += this.gaps[k] + quote(values[k] ?? "");
    return out + this.gaps[n];
  }
}
