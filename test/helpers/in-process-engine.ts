// For tests that build slices and generations in this process, with the built code: rows as the
// loader hands them to a slice's builder, and search requests as the front makes them.

import { join } from "node:path";
import type { SearchRequest } from "../../src/engine/planner.js";
import type { FacetParam } from "../../src/engine/schema.js";
import type { WasmSlice } from "../../src/engine/wasm-slice.js";
import { csvLine } from "./fixture.js";
import { ROOT } from "./server.js";

/** A built module of src/, by its path under dist/src/. */
export const dist = (p: string): string => new URL(`dist/src/${p}`, `file://${ROOT}/`).href;

const { CsvReader } = (await import(dist("golden-copy/csv.js"))) as typeof import("../../src/golden-copy/csv.js");
const { rowEncoder } = (await import(dist("golden-copy/record.js"))) as typeof import("../../src/golden-copy/record.js");
const { RecordBatchWriter } = (await import(dist("engine/record-batch.js"))) as typeof import("../../src/engine/record-batch.js");
const { SliceBuilder } = (await import(dist("engine/slice-builder.js"))) as typeof import("../../src/engine/slice-builder.js");
const { docFileOf, writeSegment } = (await import(dist("engine/segment.js"))) as typeof import("../../src/engine/segment.js");
const engine = (await import(dist("engine/wasm-slice.js"))) as typeof import("../../src/engine/wasm-slice.js");

/** The rows (under `header`) as one record batch. */
export function batchOf(header: string[], rows: string[][]): Uint8Array {
  const encoder = rowEncoder(header);
  const batch = new RecordBatchWriter();
  let first = true;
  const reader = new CsvReader((row) => {
    if (first) first = false;
    else encoder.write(row, batch);
  });
  reader.push(Buffer.from([header, ...rows].map(csvLine).join("\r\n") + "\r\n"));
  reader.end();
  return batch.finish();
}

/** A search over every field, counting `facets`, for the first 20 hits unless `over` says otherwise. */
export function searchOf(q: string | null, facets: FacetParam[], over: Partial<SearchRequest> = {}): SearchRequest {
  return { q, fields: "all", filters: {}, facets, window: 20, ...over };
}

/** A slice built from the rows (under `header`) as a load builds one, persisted in `dir` as `name`, and served from its segment. */
export async function builtSlice(dir: string, name: string, header: string[], rows: string[][]): Promise<WasmSlice> {
  const builder = new SliceBuilder(join(dir, `${name}.scratch`));
  builder.addBatch(batchOf(header, rows));
  const segment = join(dir, `${name}.segment`);
  await writeSegment(segment, builder.finish(docFileOf(segment)));
  return engine.WasmSlice.open(segment, true);
}
