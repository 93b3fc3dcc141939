// A live collection's Level 2 data, read on the front: the tables of layout.ts, opened when the
// collection goes live and closed when it is dropped. Every question is a binary search in a
// table's index kept in memory and a read or two of the file (synchronous, like a lookup's
// document read: a few KB from the page cache).

import { closeSync, openSync } from "node:fs";
import { readFully } from "../os/fd-io.js";
import { join } from "node:path";
import {
  BIC_BYTES,
  BIC_TO_LEI,
  CHILD_COUNTS,
  ISIN_BYTES,
  ISIN_TO_LEI,
  LEI_BYTES,
  LEI_TO_ISIN,
  readPlace,
  REPEX,
  REPEX_RECORDS,
  RR_BY_END,
  RR_BY_START,
  RR_RECORDS,
  type TableLayout,
} from "./layout.js";
import { SortedTable } from "./sorted-table.js";

/** One relationship seen from an entity: its type code, the LEI at the other end, its record as JSON. */
export interface Edge {
  type: number;
  lei: string;
  record: string;
}

export interface Paged<T> {
  found: number;
  items: T[];
}

export class FamilyData {
  private constructor(
    private readonly isinToLei: SortedTable,
    private readonly leiToIsin: SortedTable,
    private readonly bicToLei: SortedTable,
    private readonly byStart: SortedTable,
    private readonly byEnd: SortedTable,
    private readonly countsByParent: SortedTable,
    private readonly repex: SortedTable,
    private readonly rrRecords: number,
    private readonly repexRecords: number,
  ) {}

  /** Opens the tables under `dir`; throws when one is missing or damaged. */
  static open(dir: string): FamilyData {
    const opened: (SortedTable | number)[] = [];
    try {
      const table = (layout: TableLayout): SortedTable => {
        const t = SortedTable.open(join(dir, layout.file), layout.rowWidth, layout.keyWidth);
        opened.push(t);
        return t;
      };
      const file = (name: string): number => {
        const fd = openSync(join(dir, name), "r");
        opened.push(fd);
        return fd;
      };
      return new FamilyData(
        table(ISIN_TO_LEI),
        table(LEI_TO_ISIN),
        table(BIC_TO_LEI),
        table(RR_BY_START),
        table(RR_BY_END),
        table(CHILD_COUNTS),
        table(REPEX),
        file(RR_RECORDS),
        file(REPEX_RECORDS),
      );
    } catch (err) {
      for (const o of opened) {
        if (typeof o === "number") closeSync(o);
        else o.close();
      }
      throw err;
    }
  }

  close(): void {
    for (const t of [this.isinToLei, this.leiToIsin, this.bicToLei, this.byStart, this.byEnd, this.countsByParent, this.repex]) t.close();
    closeSync(this.rrRecords);
    closeSync(this.repexRecords);
  }

  get counts(): { relationships: number; exceptions: number; isins: number; bics: number } {
    return { relationships: this.byStart.rows, exceptions: this.repex.rows, isins: this.isinToLei.rows, bics: this.bicToLei.rows };
  }

  /** The LEI that issued the ISIN (checked and upper-cased by the caller), or null. */
  isinIssuer(isin: string): string | null {
    return this.ownerOf(this.isinToLei, isin, ISIN_BYTES);
  }

  /** The LEI the BIC (11 characters) belongs to, or null. */
  bicOwner(bic: string): string | null {
    return this.ownerOf(this.bicToLei, bic, BIC_BYTES);
  }

  private ownerOf(table: SortedTable, code: string, width: number): string | null {
    return table.find(Buffer.from(code, "latin1"))?.toString("latin1", width, width + LEI_BYTES) ?? null;
  }

  /** The entity's ISINs from the `from`-th on, at most `count`, in ISIN order, and how many it has. */
  isinsOf(lei: string, from: number, count: number): Paged<string> {
    const [first, end] = this.range(this.leiToIsin, keyOf(lei));
    const rows = this.leiToIsin.read(first + from, Math.min(count, end - first - from));
    const items: string[] = [];
    for (let at = 0; at < rows.length; at += LEI_TO_ISIN.rowWidth)
      items.push(rows.toString("latin1", at + LEI_BYTES, at + LEI_BYTES + ISIN_BYTES));
    return { found: end - first, items };
  }

  /** How many ISINs the entity has. */
  isinCount(lei: string): number {
    return this.isinsOf(lei, 0, 0).found;
  }

  /** The relationships the entity reports (it is the start node: its parents, manager, umbrella, …), at most MAX_REPORTED. */
  reported(lei: string): Edge[] {
    return this.edges(this.byStart, keyOf(lei), 0, MAX_REPORTED).items;
  }

  /** Relationships of `type` that report the entity as their end node (its children of that kind), paged in LEI order. */
  reporters(lei: string, type: number, from: number, count: number): Paged<Edge> {
    return this.edges(this.byEnd, keyOf(lei, type), from, count);
  }

  /** How many relationships of each type (code 1 … 6 at index code - 1) report the entity as their end node: its children of each kind. */
  childCounts(lei: string): Uint32Array {
    const counts = new Uint32Array(CHILD_COUNT_TYPES);
    const row = this.countsByParent.find(keyOf(lei));
    if (!row) return counts;
    for (let k = 0; k < counts.length; k++) counts[k] = row.readUInt32BE(LEI_BYTES + 4 * k);
    return counts;
  }

  /** The entity's reporting exceptions: each one's category code and ReportingException JSON. */
  exceptions(lei: string): { category: number; json: string }[] {
    const [first, end] = this.range(this.repex, keyOf(lei));
    const rows = this.repex.read(first, end - first);
    const out: { category: number; json: string }[] = [];
    for (let at = 0; at < rows.length; at += REPEX.rowWidth) {
      out.push({ category: rows[at + LEI_BYTES], json: this.record(this.repexRecords, rows, at + LEI_BYTES + 1) });
    }
    return out;
  }

  /** Whether any relationship or exception names the LEI. */
  mentions(lei: string): boolean {
    const key = keyOf(lei);
    return [this.byStart, this.countsByParent, this.repex].some((t) => t.find(key) !== null);
  }

  private edges(table: SortedTable, key: Buffer, from: number, count: number): Paged<Edge> {
    const [first, end] = this.range(table, key);
    const rows = table.read(first + from, Math.min(count, end - first - from));
    const items: Edge[] = [];
    for (let at = 0; at < rows.length; at += table.rowWidth) {
      items.push({
        type: rows[at + LEI_BYTES],
        lei: rows.toString("latin1", at + LEI_BYTES + 1, at + 2 * LEI_BYTES + 1),
        record: this.record(this.rrRecords, rows, at + 2 * LEI_BYTES + 1),
      });
    }
    return { found: end - first, items };
  }

  /** Rows whose key starts with `key`: [first, end). */
  private range(table: SortedTable, key: Buffer): [number, number] {
    return [table.bound(key), table.bound(key, true)];
  }

  private record(fd: number, rows: Buffer, placeAt: number): string {
    const { offset, length } = readPlace(rows, placeAt);
    const out = Buffer.allocUnsafe(length);
    readFully(fd, out, 0, length, offset, "Level 2 record file");
    return out.toString("utf8");
  }
}

/** An entity reports a handful of relationships; a file giving one thousands is not read whole. */
const MAX_REPORTED = 1000;
const CHILD_COUNT_TYPES = (CHILD_COUNTS.rowWidth - LEI_BYTES) / 4;

function keyOf(lei: string, type?: number): Buffer {
  const key = Buffer.alloc(type === undefined ? LEI_BYTES : LEI_BYTES + 1);
  key.write(lei, 0, "latin1");
  if (type !== undefined) key[LEI_BYTES] = type;
  return key;
}
