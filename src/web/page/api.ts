// The page's calls to the public API (same origin), each answered as data or as a problem a
// person can act on: a rate limit says how long to wait, a loading server says when to retry.

import type { FacetParam, LegalEntity } from "../../engine/schema.js";

/** The public API's entity, as the server declares it (a type only: nothing of the server is bundled). */
export type Entity = LegalEntity;

export interface FacetCounts {
  field: FacetParam;
  values: { value: string; count: number }[];
}

export interface SearchPage {
  found: number;
  outOf: number;
  page: number;
  limit: number;
  results: Entity[];
  facets: FacetCounts[];
}

/** A Level 2 relationship record (GLEIF RR), as the API serves it. */
export interface RelationshipRecord {
  startNode: string;
  endNode: string;
  type: string;
  status: string | null;
  periods?: { type: string | null; startDate: string | null; endDate: string | null }[];
  accountingStandard: string | null;
}

/** An entity on the other end of a relationship: `entity` is null where the LEI is not in Level 1. */
export interface RelatedEntity {
  lei: string;
  entity: Entity | null;
  relationship: RelationshipRecord | null;
}

/** Why an entity reports no parent (GLEIF REPEX). */
export interface ReportingException {
  lei: string;
  category: string;
  reasons: string[];
  references?: string[];
}

/** The kinds of child, as `children` counts them. */
export type ChildKind = "direct" | "ultimate" | "managedFunds" | "subFunds" | "branches" | "feeders";

/** GET /v1/entities/{lei}/relationships. Every part may be missing from an older server: read it defensively. */
export interface EntityRelationships {
  lei: string;
  entity: Entity | null;
  directParent: RelatedEntity | null;
  ultimateParent: RelatedEntity | null;
  directParentException: ReportingException | null;
  ultimateParentException: ReportingException | null;
  fundManagers: RelatedEntity[];
  umbrellaFund: RelatedEntity | null;
  masterFunds: RelatedEntity[];
  headOffice: RelatedEntity | null;
  children: Partial<Record<ChildKind, number>>;
  isins: number;
}

/** GET /v1/entities/{lei}/children and /isins: one page of a list. */
export interface ListPage<T> {
  found: number;
  page: number;
  limit: number;
  results: T[];
}

/** One part of a GLEIF load fetched apart from Level 1 (DatasetStats.parts). */
export interface SourcePartState {
  status: "fresh" | "stale" | "missing";
  from: string | null;
  loadedAt: string | null;
  since: string | null;
  reason: string | null;
}

export interface Stats {
  records: number;
  source: string;
  license: string;
  published: string | null;
  parts?: Record<"rr" | "repex" | "isin" | "bic", SourcePartState>;
}

export type Problem =
  | { kind: "rate-limited"; retryAfterSeconds: number }
  | { kind: "unavailable"; retryAfterSeconds: number; message: string }
  | { kind: "refused"; status: number; message: string }
  | { kind: "network"; message: string };

export type Answer<T> = { ok: true; value: T } | { ok: false; problem: Problem };

function seconds(header: string | null, fallback: number): number {
  const n = Number(header);
  return Number.isFinite(n) && n > 0 ? Math.ceil(n) : fallback;
}

export async function getJson<T>(path: string, signal?: AbortSignal): Promise<Answer<T>> {
  let response: Response;
  try {
    response = await fetch(path, { signal, headers: { Accept: "application/json" } });
  } catch (err) {
    if ((err as Error).name === "AbortError") throw err;
    return { ok: false, problem: { kind: "network", message: "The server cannot be reached." } };
  }
  if (response.ok) {
    try {
      return { ok: true, value: (await response.json()) as T };
    } catch (err) {
      if ((err as Error).name === "AbortError") throw err;
      return { ok: false, problem: { kind: "refused", status: response.status, message: "The server's answer could not be read." } };
    }
  }
  const message = await response
    .json()
    .then((body: { error?: string; message?: string }) => body.error ?? body.message ?? response.statusText)
    .catch(() => response.statusText);
  if (response.status === 429)
    return { ok: false, problem: { kind: "rate-limited", retryAfterSeconds: seconds(response.headers.get("Retry-After"), 10) } };
  if (response.status === 503)
    return { ok: false, problem: { kind: "unavailable", retryAfterSeconds: seconds(response.headers.get("Retry-After"), 5), message } };
  return { ok: false, problem: { kind: "refused", status: response.status, message } };
}

/** A problem in a sentence for the page's status line. */
export function problemText(problem: Problem): string {
  switch (problem.kind) {
    case "rate-limited":
      return `Too many requests from your address. Please slow down: searching resumes in ${problem.retryAfterSeconds} s.`;
    case "unavailable":
      return `The server is not ready (${problem.message}). Try again in ${problem.retryAfterSeconds} s.`;
    case "refused":
      return problem.message;
    case "network":
      return problem.message;
  }
}
