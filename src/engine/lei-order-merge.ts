// Merges the slices' export pages into one stream in LEI order. Each slice numbers its docs in
// LEI order, so its export lines come sorted; the merge takes the smallest LEI of the slices'
// current lines each step (a linear scan: slices are few), copies the line into a chunk of about
// CHUNK_BYTES and hands full chunks to the sink, fetching a slice's next page only when its last
// is used up. Memory: one page per slice and one chunk.

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;
/** Every stored document starts {"lei":"<20 characters>" */
const LEI_AT = 8;
const LEI_BYTES = 20;

export interface ExportPage {
  lines: Uint8Array;
  next: number | null;
}

interface Cursor {
  slice: number;
  lines: Uint8Array;
  pos: number;
  next: number | null;
}

function leiBefore(a: Cursor, b: Cursor): boolean {
  for (let i = LEI_AT; i < LEI_AT + LEI_BYTES; i++) {
    const d = a.lines[a.pos + i] - b.lines[b.pos + i];
    if (d !== 0) return d < 0;
  }
  return false;
}

/** `page(slice, from)`: that slice's export page from `from`; the sink answers false to stop. */
export async function mergeByLei(
  slices: number,
  page: (slice: number, from: number) => Promise<ExportPage>,
  sink: (chunk: Uint8Array) => Promise<boolean>,
): Promise<void> {
  const cursors: Cursor[] = [];
  const firsts = await Promise.all(Array.from({ length: slices }, (_, s) => page(s, 0)));
  firsts.forEach((p, s) => cursors.push({ slice: s, lines: p.lines, pos: 0, next: p.next }));
  let chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let used = 0;
  for (;;) {
    // drop drained slices, fetching the next page of those that have one
    for (let i = cursors.length - 1; i >= 0; i--) {
      const c = cursors[i];
      while (c.pos >= c.lines.length && c.next !== null) {
        const p = await page(c.slice, c.next);
        c.lines = p.lines;
        c.pos = 0;
        c.next = p.next;
      }
      if (c.pos >= c.lines.length) cursors.splice(i, 1);
    }
    if (cursors.length === 0) break;
    let best = cursors[0];
    for (let i = 1; i < cursors.length; i++) if (leiBefore(cursors[i], best)) best = cursors[i];
    let end = best.lines.indexOf(NEWLINE, best.pos);
    end = end < 0 ? best.lines.length : end + 1;
    const line = best.lines.subarray(best.pos, end);
    best.pos = end;
    if (used + line.length > chunk.length && used > 0) {
      if (!(await sink(chunk.subarray(0, used)))) return;
      chunk = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, line.length));
      used = 0;
    }
    if (line.length > chunk.length) chunk = Buffer.allocUnsafe(line.length);
    chunk.set(line, used);
    used += line.length;
  }
  if (used > 0) await sink(chunk.subarray(0, used));
}
