// Entity matching: for each row (a name, and what else the caller knows) the candidates the
// search engine finds by name, each scored in [0, 1] and explained, and a verdict. The engine
// ranks as search does; the score then weighs the names' distinctive words and legal forms, as
// the ELF code list spells them in the candidate's country (name-similarity.ts), and lifts or
// lowers a candidate whose country, city or postal code
// agrees or differs. An LEI given in the row is looked up and compared directly. Among equal
// scores, a legal name equal to the row's name character for character leads.

import type { LegalEntity } from "../engine/schema.js";
import type { SearchParams } from "../lei/search-params.js";
import type { LeiService } from "../lei/service.js";
import type { IdentifierResolver } from "../lei/batch-lookup.js";
import { analyseName, nameSimilarity, withoutLegalForms, type AnalysedName } from "./name-similarity.js";
import { LegalFormWords } from "./legal-form-words.js";

export interface MatchRow {
  name: string;
  country?: string;
  city?: string;
  postalCode?: string;
  registeredAs?: string;
  lei?: string;
}

type Agreement = "agrees" | "differs" | "not given" | "not in the data";

export interface Candidate {
  lei: string;
  name: string | null;
  score: number;
  explanation: {
    /** which of the entity's names the row's name matched: its legal name, or (found by the engine) another of its names */
    name: { matched: "legalName" | "otherName"; similarity: number };
    country: Agreement;
    city: Agreement;
    postalCode: Agreement;
    lei: Agreement;
    /** registration numbers are not in the Level 1 data this server holds */
    registeredAs: "not compared";
  };
  entity: LegalEntity;
}

export type Verdict = "match" | "ambiguous" | "possible" | "none";

export interface RowMatch {
  verdict: Verdict;
  candidates: Candidate[];
}

/** Verdict thresholds: a match is this sure and this far ahead of the next candidate. */
export const MATCH_SCORE = 0.85;
export const MATCH_LEAD = 0.05;
export const POSSIBLE_SCORE = 0.6;
/** Candidates the engine is asked for, per search. */
const SEARCH_DEPTH = 10;
/** Below this, the legal name does not explain the hit: the engine found it by another name. */
const LEGAL_NAME_FLOOR = 0.6;

const fold = (s: string): string => s.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();

function agreement(given: string | undefined, stored: string | null, same: (a: string, b: string) => boolean): Agreement {
  if (given === undefined || given.trim() === "") return "not given";
  if (stored === null) return "not in the data";
  return same(given, stored) ? "agrees" : "differs";
}

const ADJUST: Record<"country" | "city" | "postalCode", { agrees: number; differs: number }> = {
  country: { agrees: 0.05, differs: -0.2 },
  city: { agrees: 0.03, differs: -0.05 },
  postalCode: { agrees: 0.03, differs: -0.05 },
};

/** The entity's country of formation: its jurisdiction's, else its legal address's. */
const formationCountry = (entity: LegalEntity): string | null => entity.jurisdiction ?? entity.country;

/** The row's name read with each candidate country's legal forms, each country once. */
class QueryNames {
  private readonly byCountry = new Map<string | null, AnalysedName>();
  constructor(
    private readonly name: string,
    private readonly forms: LegalFormWords,
  ) {}
  in(country: string | null): AnalysedName {
    const key = country?.slice(0, 2).toUpperCase() ?? null;
    let analysed = this.byCountry.get(key);
    if (!analysed) {
      analysed = analyseName(this.name, this.forms.of(key));
      this.byCountry.set(key, analysed);
    }
    return analysed;
  }
}

function scored(row: MatchRow, entity: LegalEntity, query: QueryNames, forms: LegalFormWords): Candidate {
  const country = formationCountry(entity);
  const similarity = nameSimilarity(query.in(country), analyseName(entity.legalName ?? "", forms.of(country)));
  const countryAgrees = agreement(row.country, entity.country, (a, b) => a.trim().toUpperCase() === b);
  const city = agreement(row.city, entity.city, (a, b) => fold(a) === fold(b));
  const postalCode = agreement(
    row.postalCode,
    entity.postalCode,
    (a, b) => a.replace(/[\s-]/g, "").toUpperCase() === b.replace(/[\s-]/g, "").toUpperCase(),
  );
  const lei = agreement(row.lei, entity.lei, (a, b) => a.trim().toUpperCase() === b);
  let score = similarity;
  for (const [field, value] of [
    ["country", countryAgrees],
    ["city", city],
    ["postalCode", postalCode],
  ] as const) {
    if (value === "agrees" || value === "differs") score += ADJUST[field][value];
  }
  if (lei === "agrees") score = Math.max(score, 0.95);
  if (lei === "differs") score -= 0.1;
  return {
    lei: entity.lei,
    name: entity.legalName,
    score: Math.round(Math.min(1, Math.max(0, score)) * 1000) / 1000,
    explanation: {
      name: { matched: similarity >= LEGAL_NAME_FLOOR ? "legalName" : "otherName", similarity: Math.round(similarity * 1000) / 1000 },
      country: countryAgrees,
      city,
      postalCode,
      lei,
      registeredAs: "not compared",
    },
    entity,
  };
}

export function verdictOf(candidates: readonly Candidate[]): Verdict {
  const [best, next] = candidates;
  if (!best) return "none";
  if (best.score >= MATCH_SCORE) return next === undefined || best.score - next.score >= MATCH_LEAD ? "match" : "ambiguous";
  return best.score >= POSSIBLE_SCORE ? "possible" : "none";
}

/** The row with the LEI an ISIN or BIC maps to in place of it, written out field by field. */
function withLei(row: MatchRow, lei: string): MatchRow {
  return { name: row.name, country: row.country, city: row.city, postalCode: row.postalCode, registeredAs: row.registeredAs, lei };
}

const searchFor = (q: string): SearchParams => ({ q, fields: "name", filters: {}, facets: [], page: 1, limit: SEARCH_DEPTH });

/** A hit of a row's search: its LEI, and its stored JSON as text, parsed only if the LEI is new to the row. */
class FoundHit {
  constructor(
    readonly lei: string,
    readonly json: string,
  ) {}
}

const ignore = (): void => {};

/** A row whose searches are under way (Matcher.search()): scored once they are in (Matcher.score()). */
export class RowSearch {
  constructor(
    /** the row, with the LEI an ISIN or BIC maps to in place of it */
    readonly row: MatchRow,
    readonly found: Promise<FoundHit[][]>,
  ) {
    // a later row's searches may fail while an earlier row is awaited: the failure is met when this one is
    found.catch(ignore);
  }
}

/** Throws NotReadyError while no collection is loaded. */
export class Matcher {
  constructor(
    private readonly service: LeiService,
    /** a row's `lei` may be an ISIN or BIC: the LEI it maps to is the one compared */
    private readonly resolve: IdentifierResolver = () => null,
    /** the legal-form words of each country (the ELF code list given at start-up) */
    private readonly forms: LegalFormWords = LegalFormWords.bundled(),
  ) {}

  /** The hits' documents are copied out as text at once: they are scratch memory, and parsing waits for the row's turn. */
  private found(params: SearchParams): Promise<FoundHit[]> {
    return this.service.searchOutcomeWith(params, (outcome) =>
      outcome.hits.map((hit) => new FoundHit(hit[1], Buffer.from(hit[2].buffer, hit[2].byteOffset, hit[2].byteLength).toString("utf8"))),
    );
  }

  private lookedUp(lei: string | undefined): LegalEntity | null {
    if (lei === undefined || lei.trim() === "") return null;
    return this.service.entity(lei, (r) => (r.kind === "found" ? (JSON.parse(Buffer.from(r.json).toString("utf8")) as LegalEntity) : null));
  }

  /** Starts the row's searches: its name as given, and without its legal forms. */
  search(given: MatchRow): RowSearch {
    const mapped = given.lei === undefined ? null : this.resolve(given.lei);
    const row = mapped && mapped.kind !== "LEI" && mapped.lei !== null ? withLei(given, mapped.lei) : given;
    const stripped = withoutLegalForms(row.name, this.forms.of(row.country ?? null));
    const searches = [this.found(searchFor(row.name))];
    if (stripped) searches.push(this.found(searchFor(stripped)));
    return new RowSearch(row, Promise.all(searches));
  }

  /** The row's candidates and verdict, from its searches' hits (and a given LEI's entity). Synchronous. */
  score(row: MatchRow, found: readonly FoundHit[][], limit: number): RowMatch {
    const byLei = new Map<string, LegalEntity>();
    const direct = this.lookedUp(row.lei);
    if (direct) byLei.set(direct.lei, direct);
    for (const hits of found) for (const hit of hits) if (!byLei.has(hit.lei)) byLei.set(hit.lei, JSON.parse(hit.json) as LegalEntity);
    const query = new QueryNames(row.name, this.forms);
    const pasted = row.name.trim();
    // equal scores: a legal name equal to the row's as typed first (CRUNA S.R.L. before CRUNA SRL,
    // which the analysis makes equal), then the engine's order: it ranks the exact name, then the
    // closest length, then current registrations first (a given LEI's entity leads)
    const candidates = [...byLei.values()]
      .map((e, rank) => ({ candidate: scored(row, e, query, this.forms), rank, exact: e.legalName?.trim() === pasted ? 0 : 1 }))
      .sort((a, b) => b.candidate.score - a.candidate.score || a.exact - b.exact || a.rank - b.rank)
      .map(({ candidate }) => candidate);
    return { verdict: verdictOf(candidates), candidates: candidates.slice(0, limit) };
  }

  async match(given: MatchRow, limit: number): Promise<RowMatch> {
    const search = this.search(given);
    return this.score(search.row, await search.found, limit);
  }
}
