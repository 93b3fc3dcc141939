// Scoped search keys, Typesense's format: base64( base64(HMAC-SHA256(parent, params)) + parent[0:4]
// + params ). The client derives them without calling the server; the server finds the parent by
// its 4-char prefix, checks the HMAC over the exact params bytes, and applies the params.

import { createHmac, timingSafeEqual } from "node:crypto";
import type { ApiKey } from "./model.js";

const DIGEST_CHARS = 44; // base64 of 32 bytes, padded

export interface ScopedToken {
  digest: string;
  prefix: string;
  /** the exact JSON text the digest covers */
  paramsJson: string;
}

/** Splits a presented key into a scoped token, or null when it cannot be one. */
export function parseScoped(presented: string): ScopedToken | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(presented)) return null;
  const raw = Buffer.from(presented, "base64").toString("utf8");
  if (raw.length < DIGEST_CHARS + 4 + 2) return null;
  return { digest: raw.slice(0, DIGEST_CHARS), prefix: raw.slice(DIGEST_CHARS, DIGEST_CHARS + 4), paramsJson: raw.slice(DIGEST_CHARS + 4) };
}

export function scopedDigest(parentValue: string, paramsJson: string): string {
  return createHmac("sha256", parentValue).update(paramsJson).digest("base64");
}

export function digestMatches(parent: ApiKey, token: ScopedToken): boolean {
  const want = Buffer.from(scopedDigest(parent.value, token.paramsJson));
  const got = Buffer.from(token.digest);
  return want.length === got.length && timingSafeEqual(want, got);
}

/** The embedded search parameters: an object of scalars; expires_at a non-negative integer. */
export function embeddedParams(token: ScopedToken): Record<string, string | number | boolean> | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(token.paramsJson);
  } catch {
    return "the scoped key's parameters are not JSON";
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return "the scoped key's parameters are not a JSON object";
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(parsed)) {
    if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean")
      return `the scoped key's parameter '${k}' is not a scalar`;
    out[k] = v;
  }
  if ("expires_at" in out && !(typeof out.expires_at === "number" && Number.isSafeInteger(out.expires_at) && out.expires_at >= 0)) {
    return "the scoped key's expires_at is not a non-negative integer";
  }
  return out;
}

/** A search's parameters, and the scoped key's embedded filter_by to AND with theirs (null: none). */
export interface ScopedParams {
  params: Record<string, string>;
  scopeFilter: string | null;
}

/**
 * Embedded params override the request's, except filter_by, which is kept apart as scopeFilter:
 * it is ANDed with the request's only once each is parsed on its own (filter-by.ts), never
 * spliced into its text. A copy by Object.assign, not a leading spread: see roundQuery() in
 * engine/search-rounds.ts.
 */
export function applyEmbedded(request: Record<string, string>, embedded: Record<string, string | number | boolean>): ScopedParams {
  const params = Object.assign({}, request);
  let scopeFilter: string | null = null;
  for (const [k, v] of Object.entries(embedded)) {
    if (k === "expires_at") continue;
    if (k === "filter_by") scopeFilter = String(v);
    else params[k] = String(v);
  }
  // the key set filter_by, so a preset may not fill it (a preset fills what neither set)
  if (scopeFilter !== null) params.filter_by ??= "";
  return { params, scopeFilter };
}

/** A search by a key that embeds nothing. */
export const unscoped = (params: Record<string, string>): ScopedParams => ({ params, scopeFilter: null });
