// GET /v1/entities/export: every match of a public search as JSON lines, streamed with
// backpressure. With q: in relevance order, the same entities in the same order as paging through
// the search, up to MAX_QUERY_EXPORT (pages of QUERY_PAGE ranked one after another). Filters
// only: every match in LEI order, merged across the slices (engine/lei-order-merge.ts). An export
// weighs EXPORT_WEIGHT on the per-IP rate limit, and an address runs MAX_EXPORTS_PER_ADDRESS at once.

import { queryEntries } from "../http/query-string.js";
import type { JsonSchema } from "../http/route.js";
import type { LeiService } from "./service.js";
import { ParamError, parseSearchParams, type SearchParams } from "./search-params.js";

export const MAX_QUERY_EXPORT = 10_000;
export const EXPORT_WEIGHT = 100;
export const MAX_EXPORTS_PER_ADDRESS = 2;
const QUERY_PAGE = 1000;
const NOT_FOR_EXPORT = new Set(["page", "limit", "facets"]);

export const EXPORT_LINE_SCHEMA: JsonSchema = { type: "string", description: "One LegalEntity as JSON per line" };

/** The search an export runs; ParamError on a bad or paging parameter. */
export function exportParams(rawQuery: string): SearchParams {
  const params = parseSearchParams(rawQuery); // a malformed query string is a ParamError here
  for (const [name] of queryEntries(rawQuery)) {
    if (NOT_FOR_EXPORT.has(name))
      throw new ParamError(`an export takes no '${name}': it streams every match (with q, the best ${MAX_QUERY_EXPORT})`);
  }
  return params;
}

/** Streams the export into `write` (false: the client is gone, stop). */
export async function streamExport(
  service: LeiService,
  params: SearchParams,
  write: (chunk: Uint8Array) => Promise<boolean>,
): Promise<void> {
  if (params.q === null) {
    await service.exportInLeiOrder(params, write);
    return;
  }
  for (let page = 1; (page - 1) * QUERY_PAGE < MAX_QUERY_EXPORT; page++) {
    const { lines, last } = await service.searchOutcomeWith({ ...params, page, limit: QUERY_PAGE }, (outcome) => {
      // the documents are scratch memory, valid in this callback only: copied into one chunk
      const docs = outcome.hits.map((hit) => hit[2]);
      const chunk = Buffer.allocUnsafe(docs.reduce((n, doc) => n + doc.length + 1, 0));
      let at = 0;
      for (const doc of docs) {
        chunk.set(doc, at);
        chunk[at + doc.length] = 0x0a;
        at += doc.length + 1;
      }
      return { lines: chunk, last: page * QUERY_PAGE >= outcome.found || outcome.hits.length < QUERY_PAGE };
    });
    if (lines.length > 0 && !(await write(lines))) return;
    if (last) return;
  }
}
