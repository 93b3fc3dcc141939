// The LEI area's core API, shared by the HTTP routes and the MCP tools so both give the same
// answers from the same search path: validated parameters in, SearchPage/LegalEntity JSON out.

import type { Collection, SearchOutcome } from "../engine/collection.js";
import { AnswerCache } from "./answer-cache.js";
import type { FacetParam } from "../engine/schema.js";
import { checkDigitsValid, hasLeiForm } from "./lei-code.js";
import type { SearchParams } from "./search-params.js";

export const LICENSE = "CC0 1.0";
const SEARCHABLE = /[\p{L}\p{N}]/u;

export type EntityLookup =
  | { kind: "found"; json: Uint8Array; checkDigitsValid: boolean }
  | { kind: "malformed"; message: string }
  | { kind: "bad-check-digits"; message: string }
  | { kind: "not-found"; message: string };

export interface DatasetStats {
  records: number;
  source: string;
  license: string;
  published: string | null;
  downloadSeconds: number | null;
  ingestSeconds: number | null;
}

export class LeiService {
  /** Serialised answers of the live generation; a new generation's keys never meet old ones. */
  private readonly cache: AnswerCache | null;

  constructor(private readonly collection: Collection, cacheBytes = 64 << 20) {
    this.cache = cacheBytes > 0 ? new AnswerCache(cacheBytes) : null;
  }

  /** A SearchPage, serialised: stored documents are spliced in as they are. */
  async search(params: SearchParams): Promise<Buffer> {
    if (!this.cache) return renderSearchPage(await this.searchOutcome(params), params);
    const key = `${this.collection.current?.gen}|s|${JSON.stringify(params)}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const page = renderSearchPage(await this.searchOutcome(params), params);
    this.cache.set(key, page);
    return page;
  }

  /** The raw outcome (hits as stored JSON), for APIs that shape their own answer. */
  searchOutcome(params: SearchParams): Promise<SearchOutcome> {
    if (params.q !== null && !SEARCHABLE.test(params.q)) return Promise.resolve(this.emptyOutcome());
    return this.collection.search({
      q: params.q, fields: params.fields, filters: params.filters, facets: params.facets, window: params.page * params.limit,
      maxTypos: params.maxTypos, prefix: params.prefix, exclude: params.exclude,
    });
  }

  /** What a query that can match nothing answers (no engine round trip). */
  emptyOutcome(): SearchOutcome {
    return { found: 0, outOf: this.collection.current?.docs ?? 0, hits: [], facets: {}, tookMs: 0 };
  }

  /** Not async: a lookup is the hottest route, and each await layer costs a promise hop. */
  entity(input: string): Promise<EntityLookup> {
    const lei = input.trim().toUpperCase();
    if (!hasLeiForm(lei)) {
      return Promise.resolve({ kind: "malformed", message: `malformed LEI '${input}': an LEI is 20 characters, 18 letters or digits then 2 check digits` });
    }
    const valid = checkDigitsValid(lei);
    return this.collection.lookup(lei).then((json): EntityLookup => {
      if (json) return { kind: "found", json, checkDigitsValid: valid };
      if (!valid) return { kind: "bad-check-digits", message: `LEI '${lei}' fails the ISO 17442 check digits and is not in the dataset` };
      return { kind: "not-found", message: `no entity with LEI '${lei}'` };
    });
  }

  facetValues(field: FacetParam): Promise<[string, number][]> {
    return this.collection.facetValues(field);
  }

  stats(): DatasetStats {
    const live = this.collection.current;
    return {
      records: live?.docs ?? 0,
      source: live?.source ?? "no collection loaded yet",
      license: LICENSE,
      published: live?.published ?? null,
      downloadSeconds: live?.downloadSeconds ?? null,
      ingestSeconds: live?.ingestSeconds === null || live?.ingestSeconds === undefined ? null : round(live.ingestSeconds),
    };
  }
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

function renderSearchPage(outcome: SearchOutcome, params: SearchParams): Buffer {
  const start = (params.page - 1) * params.limit;
  const page = outcome.hits.slice(start, start + params.limit);
  const parts: (Buffer | Uint8Array)[] = [
    Buffer.from(`{"found":${outcome.found},"outOf":${outcome.outOf},"page":${params.page},"limit":${params.limit},"searchTimeMs":${Math.round(outcome.tookMs)},"results":[`),
  ];
  page.forEach((hit, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(hit[2]);
  });
  parts.push(CLOSE_ARRAY);
  if (params.facets.length > 0) {
    const facets = params.facets.map((field) => ({
      field,
      values: (outcome.facets[field] ?? []).map(([value, count]) => ({ value, count })),
    }));
    parts.push(Buffer.from(`,"facets":${JSON.stringify(facets)}`));
  }
  parts.push(CLOSE_OBJECT);
  return Buffer.concat(parts);
}

const COMMA = Buffer.from(",");
const CLOSE_ARRAY = Buffer.from("]");
const CLOSE_OBJECT = Buffer.from("}");
