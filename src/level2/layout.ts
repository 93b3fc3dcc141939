// The Level 2 tables of a collection, under <collection>/level2/: which rows each holds, their
// byte layout, and the codes of relationship types and exception categories. Written by the
// loader thread (build.ts), read on the front (family-data.ts).

export const LEI_BYTES = 20;
export const ISIN_BYTES = 12;
export const BIC_BYTES = 11;
/** where a JSON record lies in its .jsonl file: 6 bytes of offset, 2 of length */
export const PLACE_BYTES = 8;

/** RR-CDF 2.1 relationship types; the order is their code - 1. */
export const RELATIONSHIP_TYPES = [
  "IS_DIRECTLY_CONSOLIDATED_BY",
  "IS_ULTIMATELY_CONSOLIDATED_BY",
  "IS_FUND-MANAGED_BY",
  "IS_SUBFUND_OF",
  "IS_FEEDER_TO",
  "IS_INTERNATIONAL_BRANCH_OF",
] as const;
export type RelationshipType = (typeof RELATIONSHIP_TYPES)[number];
/** a type this build does not know: kept, listed under no kind */
export const OTHER_TYPE = 7;
export const DIRECT = 1,
  ULTIMATE = 2,
  FUND_MANAGER = 3,
  UMBRELLA = 4,
  MASTER_FUND = 5,
  HEAD_OFFICE = 6;

export const EXCEPTION_CATEGORIES = ["DIRECT_ACCOUNTING_CONSOLIDATION_PARENT", "ULTIMATE_ACCOUNTING_CONSOLIDATION_PARENT"] as const;
export const OTHER_CATEGORY = 3;

export function typeCode(type: string): number {
  const i = (RELATIONSHIP_TYPES as readonly string[]).indexOf(type);
  return i < 0 ? OTHER_TYPE : i + 1;
}

export function categoryCode(category: string): number {
  const i = (EXCEPTION_CATEGORIES as readonly string[]).indexOf(category);
  return i < 0 ? OTHER_CATEGORY : i + 1;
}

/** One table: its file name, row width and the key bytes its index keeps. */
export interface TableLayout {
  file: string;
  rowWidth: number;
  keyWidth: number;
}

/** [ISIN][LEI], by ISIN */
export const ISIN_TO_LEI: TableLayout = { file: "isin-lei.tbl", rowWidth: ISIN_BYTES + LEI_BYTES, keyWidth: ISIN_BYTES };
/** [LEI][ISIN], by LEI then ISIN */
export const LEI_TO_ISIN: TableLayout = { file: "lei-isin.tbl", rowWidth: LEI_BYTES + ISIN_BYTES, keyWidth: LEI_BYTES };
/** [BIC][LEI], by BIC */
export const BIC_TO_LEI: TableLayout = { file: "bic-lei.tbl", rowWidth: BIC_BYTES + LEI_BYTES, keyWidth: BIC_BYTES };
/** [start LEI][type][end LEI][place in rr.jsonl], by start, type, end: what an entity reports */
export const RR_BY_START: TableLayout = { file: "rr-start.tbl", rowWidth: 2 * LEI_BYTES + 1 + PLACE_BYTES, keyWidth: LEI_BYTES + 1 };
/** [end LEI][type][start LEI][place in rr.jsonl], by end, type, start: who reports the entity (its children) */
export const RR_BY_END: TableLayout = { file: "rr-end.tbl", rowWidth: 2 * LEI_BYTES + 1 + PLACE_BYTES, keyWidth: LEI_BYTES + 1 };
/** [end LEI][a u32 count per relationship type 1…6], by LEI: how many children of each kind an entity has */
export const CHILD_COUNTS: TableLayout = {
  file: "child-counts.tbl",
  rowWidth: LEI_BYTES + 4 * RELATIONSHIP_TYPES.length,
  keyWidth: LEI_BYTES,
};
/** [LEI][category][place in repex.jsonl], by LEI and category */
export const REPEX: TableLayout = { file: "repex.tbl", rowWidth: LEI_BYTES + 1 + PLACE_BYTES, keyWidth: LEI_BYTES + 1 };

export const RR_RECORDS = "rr.jsonl";
export const REPEX_RECORDS = "repex.jsonl";
/** each part's full file as its build parsed it (parsed-rows.ts) */
export const RR_PARSED = "rr-rows.bin";
export const REPEX_PARSED = "repex-rows.bin";
export const LEVEL2_DIR = "level2";

export const TABLES = [ISIN_TO_LEI, LEI_TO_ISIN, BIC_TO_LEI, RR_BY_START, RR_BY_END, CHILD_COUNTS, REPEX];

export function writePlace(buf: Buffer, at: number, offset: number, length: number): void {
  buf.writeUIntBE(offset, at, 6);
  buf.writeUInt16BE(length, at + 6);
}

export function readPlace(buf: Buffer, at: number): { offset: number; length: number } {
  return { offset: buf.readUIntBE(at, 6), length: buf.readUInt16BE(at + 6) };
}

/** What a Level 2 load held, recorded in the collection's manifest. */
export interface Level2Counts {
  relationships: number;
  exceptions: number;
  isins: number;
  bics: number;
  /** rows left out: an identifier of the wrong form, a deleted exception */
  skipped: number;
  /** the files they were read from (kept downloads, or local files), to rebuild or carry to an import */
  files: Level2Files;
  /** per part built from GLEIF deltas: the deltas read after its file, oldest first */
  deltas?: Level2Deltas;
}

/** The Level 2 parts GLEIF publishes deltas of. */
export type DeltaPart = "rr" | "repex";
export const DELTA_PARTS: readonly DeltaPart[] = ["rr", "repex"];

/** Per part, deltas read after its file, oldest first (paths, or URLs before the download). */
export type Level2Deltas = Partial<Record<DeltaPart, string[]>>;

export interface Level2Files {
  rr: string | null;
  repex: string | null;
  isin: string | null;
  bic: string | null;
}

export const NO_LEVEL2_FILES: Level2Files = { rr: null, repex: null, isin: null, bic: null };

/**
 * The state of each Level 2 part of a GLEIF load, as its manifest records it: a part that could
 * not be fetched keeps an earlier load's copy (stale) or is empty (missing); golden-copy/source-parts.ts.
 */
export type SourcePart = keyof Level2Files;

export type PartStatus = "fresh" | "stale" | "missing";

export interface PartState {
  /** fresh: fetched by the load that built the live collection; stale: an earlier load's copy; missing: none, empty */
  status: PartStatus;
  /** what its data is: the GLEIF publication (rr, repex) or the mapping file's name (isin, bic); null when missing */
  from: string | null;
  /** when the load that fetched its data ran (ISO UTC); null when missing */
  loadedAt: string | null;
  /** stale: the carried copy's loadedAt; missing: the first failure's time; null when fresh */
  since: string | null;
  /** stale or missing: why the latest load could not use a new copy, one line without server paths */
  reason: string | null;
}

export type SourceParts = Record<SourcePart, PartState>;
