// The LEI area's core API, shared by the HTTP routes and the MCP tools so both give the same
// answers from the same search path: validated parameters in, SearchPage/LegalEntity JSON out.

import type { CollectionView, DeltaCost, LiveGeneration, SearchOutcome } from "../engine/collection-view.js";
import type { SearchRequest } from "../engine/planner.js";
import { ScratchBytes } from "../engine/scratch-bytes.js";
import { AnswerCache } from "./answer-cache.js";
import type { FacetParam } from "../engine/schema.js";
import { checkDigitsValid, hasLeiForm } from "./lei-code.js";
import type { SearchParams } from "./search-params.js";
import type { SourceParts } from "../level2/layout.js";

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
  /** whether an activated licence is valid on this installation (GET /license tells more) */
  licenseActive: boolean;
  /** GLEIF loads: each separately fetched part (rr, repex, isin, bic), fresh, stale or missing */
  parts?: SourceParts;
  /** field changes the live collection's load found against the one it replaced; null: not compared (docs/changes.md) */
  changesDetected: number | null;
  /** seconds that change detection took, storing included; null: not compared */
  changeDetectionSeconds: number | null;
  /** the GLEIF delta the live collection's load applied, and what it cost; null: it was a full load */
  delta: DeltaCost | null;
}

export class LeiService {
  private taggedLoad: LiveGeneration | null = null;
  private loadTag: string | null = null;
  /** Serialised answers of the live generation; a new generation's keys never meet old ones. */
  private readonly cache: AnswerCache | null;
  /** the page being sent (search) */
  private readonly pageScratch = new ScratchBytes();

  constructor(
    private readonly collection: CollectionView,
    cacheBytes = 64 << 20,
    /** whether a licence is active here (license/license-state.ts), for the stats */
    private readonly licensed: () => boolean = () => false,
  ) {
    this.cache = cacheBytes > 0 ? new AnswerCache(cacheBytes) : null;
  }

  /**
   * The SearchPage, serialised (stored documents spliced in as they are), handed to `use`. The
   * bytes are scratch memory the next search reuses (engine/scratch-bytes.ts says why): valid
   * during `use` only, so `use` sends or copies them and returns.
   */
  search<T>(params: SearchParams, use: (page: Buffer) => T): Promise<T> {
    const key = this.cache ? `${this.collection.current?.gen}|s|${JSON.stringify(params)}` : "";
    const cached = this.cache?.peek(key);
    if (cached) return now(use, cached);
    return this.searchOutcomeWith(params, (outcome) => {
      const page = renderSearchPage(outcome, params, this.pageScratch);
      this.cache?.set(key, page);
      return use(page);
    });
  }

  /**
   * The raw outcome, for APIs that shape their own answer, handed to `use`: its hits are the
   * page's (from its first on), their documents scratch, valid during `use` only, as in search().
   */
  searchOutcomeWith<T>(params: SearchParams, use: (outcome: SearchOutcome) => T): Promise<T> {
    return this.outcome(params, (params.page - 1) * params.limit, use);
  }

  /**
   * As searchOutcomeWith(), for the variants of one query (synonyms: the same parameters but q):
   * merged before any document is read, so only the page's are. A variant that can match
   * nothing is left out.
   */
  searchVariantsWith<T>(variants: SearchParams[], use: (outcome: SearchOutcome) => T): Promise<T> {
    const kept = variants.filter(searchable);
    if (kept.length === 0) return now(use, this.emptyOutcome());
    if (kept.length === 1) return this.searchOutcomeWith(kept[0], use);
    return this.collection.searchVariantsWith(kept.map(engineRequest), (kept[0].page - 1) * kept[0].limit, use);
  }

  private outcome<T>(params: SearchParams, from: number, use: (outcome: SearchOutcome) => T): Promise<T> {
    if (!searchable(params)) return now(use, this.emptyOutcome());
    const q = params.q;
    if (from > 0 || q === null) return this.collection.searchWith(engineRequest(params), from, use);
    return this.collection.searchWith(engineRequest(params), from, (outcome) => use(pastedNameFirst(outcome, q, params.limit)));
  }

  /** Every entity passing the search's filters, as JSON lines in LEI order, handed to `write` chunk by chunk. */
  exportInLeiOrder(params: SearchParams, write: (chunk: Uint8Array) => Promise<boolean>): Promise<void> {
    return this.collection.exportLines(params.filters, params.exclude ?? {}, write);
  }

  /** What a query that can match nothing answers (no engine round trip). */
  emptyOutcome(): SearchOutcome {
    return { found: 0, outOf: this.collection.current?.docs ?? 0, hits: [], facets: {}, tookMs: 0 };
  }

  /**
   * The entity, or why there is none, handed to `use`. A found entity's JSON is scratch memory
   * the next lookup reuses (engine/scratch-bytes.ts): valid during `use` only. Synchronous: a
   * lookup is the hottest route, and the front answers it on its own (engine/lei-table.ts).
   * Throws NotReadyError while no collection is loaded.
   */
  entity<T>(input: string, use: (result: EntityLookup) => T): T {
    const lei = input.trim().toUpperCase();
    if (!hasLeiForm(lei)) {
      return use({
        kind: "malformed",
        message: `malformed LEI '${input}': an LEI is 20 characters, 18 letters or digits then 2 check digits`,
      });
    }
    const valid = checkDigitsValid(lei);
    return this.collection.lookupWith(lei, (json) => {
      if (json) return use({ kind: "found", json, checkDigitsValid: valid });
      if (!valid)
        return use({ kind: "bad-check-digits", message: `LEI '${lei}' fails the ISO 17442 check digits and is not in the dataset` });
      return use({ kind: "not-found", message: `no entity with LEI '${lei}'` });
    });
  }

  /** Whether the dataset holds this LEI (any case), without reading its record. Throws NotReadyError while nothing is loaded. */
  holds(input: string): boolean {
    const lei = input.trim().toUpperCase();
    return hasLeiForm(lei) && this.collection.hasLei(lei);
  }

  facetValues(field: FacetParam): Promise<[string, number][]> {
    return this.collection.facetValues(field);
  }

  /** The weak ETag of the live load (its collection name and load time, which no other load shares); null before the first. */
  liveEtag(): string | null {
    const live = this.collection.current;
    if (live !== this.taggedLoad) {
      // once per load, not per request: lookups and searches ask for it every time
      this.taggedLoad = live;
      this.loadTag = live ? `W/"${live.name}@${Date.parse(live.loadedAt)}"` : null;
    }
    return this.loadTag;
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
      licenseActive: this.licensed(),
      ...(live?.parts ? { parts: live.parts } : {}),
      changesDetected: live?.changes?.detected ?? null,
      changeDetectionSeconds: live?.changes?.seconds ?? null,
      delta: live?.delta ?? null,
    };
  }
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** `use` of a value at hand, as a promise: what it throws becomes a rejection, as on the engine's path. */
function now<A, T>(use: (value: A) => T, value: A): Promise<T> {
  return new Promise((resolve) => resolve(use(value)));
}

/** A query with no letter or digit matches nothing: it is answered without the engine. */
function searchable(params: SearchParams): boolean {
  return params.q === null || SEARCHABLE.test(params.q);
}

/** The engine's score bit of a doc whose whole name is the query's, legal forms and punctuation folded (native/assembly/query.ts). */
const EXACT_NAME_SCORE = 2 ** 52;

/**
 * The first page with the hits whose legal name is the query character for character ahead of
 * those equal to it only once folded ("CRUNA S.R.L." before "CRUNA SRL" for the first, and the
 * other way round for the second). The engine ranks both as exact names; only their stored
 * names tell them apart, and only those few are read. Reordered within the page's leading run of
 * exact names, when that run ends on the page, so that no hit moves across pages.
 */
function pastedNameFirst(outcome: SearchOutcome, q: string, limit: number): SearchOutcome {
  const hits = outcome.hits;
  let run = 0;
  while (run < hits.length && hits[run][0] >= EXACT_NAME_SCORE) run++;
  // a run as long as a full page may go on past it
  if (run < 2 || run >= limit) return outcome;
  const pasted = q.trim();
  const same = hits.slice(0, run).map((h) => legalNameOf(h[2]) === pasted);
  if (!same.some((x) => x) || same.every((x) => x)) return outcome;
  const ordered = [...hits.slice(0, run).filter((_, i) => same[i]), ...hits.slice(0, run).filter((_, i) => !same[i]), ...hits.slice(run)];
  return { ...outcome, hits: ordered };
}

function legalNameOf(doc: Uint8Array): string | null {
  try {
    const name = (JSON.parse(Buffer.from(doc.buffer, doc.byteOffset, doc.byteLength).toString("utf8")) as { legalName?: unknown })
      .legalName;
    return typeof name === "string" ? name.trim() : null;
  } catch {
    return null;
  }
}

function engineRequest(params: SearchParams): SearchRequest {
  return {
    q: params.q,
    fields: params.fields,
    filters: params.filters,
    facets: params.facets,
    window: params.page * params.limit,
    maxTypos: params.maxTypos,
    prefix: params.prefix,
    exclude: params.exclude,
  };
}

/** The page (the outcome's hits are the page's, from its first on), serialised into `scratch`. */
function renderSearchPage(outcome: SearchOutcome, params: SearchParams, scratch: ScratchBytes): Buffer {
  const end = Math.min(outcome.hits.length, params.limit);
  const parts: (string | Uint8Array)[] = [
    `{"found":${outcome.found},"outOf":${outcome.outOf},"page":${params.page},"limit":${params.limit},"searchTimeMs":${Math.round(outcome.tookMs)},"results":[`,
  ];
  for (let i = 0; i < end; i++) {
    if (i > 0) parts.push(",");
    parts.push(outcome.hits[i][2]);
  }
  if (params.facets.length > 0) {
    const facets = params.facets.map((field) => ({
      field,
      values: (outcome.facets[field] ?? []).map(([value, count]) => ({ value, count })),
    }));
    parts.push(`],"facets":${JSON.stringify(facets)}}`);
  } else {
    parts.push("]}");
  }
  return scratch.join(parts);
}
