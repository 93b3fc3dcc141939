// Conditional requests on the public API: every answer that depends only on the loaded
// collection (lookups, searches, facets, stats) carries a weak ETag naming that load, so a
// reload changes every tag; a request whose If-None-Match names the live one is a 304 at once,
// before any work. Cache-Control lets clients and proxies keep an answer an hour, well within the
// daily reload, and revalidate it with the tag after.

import type { ResponseDoc } from "../http/route.js";
import type { Reply, Request } from "../http/server.js";

export const CACHE_CONTROL = "public, max-age=3600";

/** Whether an If-None-Match header names `etag` (weak comparison, RFC 9110 section 13.1.2). */
export function ifNoneMatchHits(header: string, etag: string): boolean {
  if (header === "") return false;
  if (header.trim() === "*") return true;
  const opaque = etag.slice(2); // without W/
  return header.split(",").some((tag) => {
    const t = tag.trim();
    return (t.startsWith("W/") ? t.slice(2) : t) === opaque;
  });
}

/**
 * Sets ETag and Cache-Control for the live load; true when the request's If-None-Match
 * names it, and the 304 has been sent. Call it before the handler's first await (it reads a header).
 */
export function answeredNotModified(req: Request, reply: Reply, etag: string | null): boolean {
  if (etag === null) return false;
  reply.fixedHeader("ETag", etag).fixedHeader("Cache-Control", CACHE_CONTROL);
  if (!ifNoneMatchHits(req.header("if-none-match"), etag)) return false;
  reply.send(304, "", "application/json; charset=utf-8");
  return true;
}

/** The OpenAPI side: the headers of a 200, and the 304. */
export const CONDITIONAL_HEADERS = {
  ETag: { description: "Names the loaded collection; a reload changes it", schema: { type: "string" } },
  "Cache-Control": { description: CACHE_CONTROL, schema: { type: "string" } },
};
export const NOT_MODIFIED: ResponseDoc = {
  description: "If-None-Match names the live collection's ETag: the answer is unchanged",
  headers: CONDITIONAL_HEADERS,
};
