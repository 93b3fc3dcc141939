// What every keyed route shares: the engine key guard (which action on which collections the
// request needs, checked before the handler and before any body is read), Typesense's error
// shape, and JSON bodies read with a cap.

import { BAD_JSON, readJsonBody } from "../http/json-schema.js";
import { REFUSED, type Guard, type Method, type OperationDoc, type RouteOptions } from "../http/route.js";
import type { HttpServer, Reply, Request } from "../http/server.js";
import { KeyAuth, type AuthOutcome, type Caller } from "./auth.js";

export const MAX_JSON_BODY = 64 * 1024;
/** route options of handlers that read a JSON body */
export const JSON_BODY = { maxBodyBytes: MAX_JSON_BODY } as const;

export interface Guarded {
  caller: Caller;
  req: Request;
  reply: Reply;
}

/** Which action and collections a request needs (none, e.g. /keys), or why it is refused before any key is checked. */
export type Need = (
  req: Request,
) => { action: string; collections: string[] } | { status: number; message: string; retryAfterSeconds?: number };

/** An action on no collection in particular (keys, aliases, settings lists, admin). */
export const noCollection =
  (action: string): Need =>
  () => ({ action, collections: [] });

/** The engine key guard: the key presented (header or query parameter) must allow `need`'s action on its collections. */
export function engineKey(auth: KeyAuth, need: Need): Guard<Caller> {
  return {
    scheme: "engineKey",
    admit(req, reply) {
      const presented = KeyAuth.presented((header) => req.header(header), req.rawQuery);
      const wanted = need(req);
      if ("status" in wanted) {
        if (wanted.retryAfterSeconds !== undefined) reply.header("Retry-After", String(wanted.retryAfterSeconds));
        reply.error(wanted.status, wanted.message);
        return REFUSED;
      }
      const outcome = auth.check(req.ip, presented, wanted.action, wanted.collections);
      if (!outcome.ok) {
        refuseKey(reply, outcome);
        return REFUSED;
      }
      return outcome.caller;
    },
  };
}

/** A key refused: 401, 403, or 429 with Retry-After once the address has spent its guesses. */
export function refuseKey(reply: Reply, refusal: AuthOutcome & { ok: false }): void {
  if (refusal.retryAfterSeconds !== undefined) reply.header("Retry-After", String(refusal.retryAfterSeconds));
  reply.error(refusal.status, refusal.message);
}

/**
 * For /multi_search, whose searches are authorised one by one (each may carry its own key): a
 * key the request presents must allow documents:search, checked before the body is read; the
 * principal is that key, or null when the request presents none (then every search must carry
 * its own, which the handler checks once it has read them).
 */
export function searchKeyIfPresented(auth: KeyAuth): Guard<string | null> {
  return {
    scheme: "engineKey",
    admit(req, reply) {
      const presented = KeyAuth.presented((header) => req.header(header), req.rawQuery);
      if (presented === null) return null;
      const outcome = auth.check(req.ip, presented, "documents:search", []);
      if (!outcome.ok) {
        refuseKey(reply, outcome);
        return REFUSED;
      }
      return presented;
    },
  };
}

/** A route of the engine API: declared with its action, answered by `handler` once the key allows it. */
export interface KeyedRoute {
  method: Method;
  path: string;
  name: string;
  /** the key action it needs, e.g. documents:search */
  action: string;
  /** on which collections (default: none in particular), or why the request is refused first */
  scope?: (action: string) => Need;
  doc: OperationDoc | "refusal";
  options?: Pick<RouteOptions, "maxBodyBytes" | "uploadDir" | "maxUploadBytes" | "cors">;
}

export function keyedRoute(server: HttpServer, auth: KeyAuth, route: KeyedRoute, handler: (g: Guarded) => void | Promise<void>): void {
  const need = (route.scope ?? noCollection)(route.action);
  const needs = `Needs a key with the action \`${route.action}\`.`;
  const doc =
    route.doc === "refusal"
      ? route.doc
      : { ...route.doc, description: route.doc.description ? `${route.doc.description}\n\n${needs}` : needs };
  server.route<Caller>(
    route.method,
    route.path,
    { ...route.options, name: route.name, area: "engine", auth: engineKey(auth, need), doc },
    (req, reply, caller) => handler({ caller, req, reply }),
  );
}

/** The body as a JSON value; replies 400 and returns undefined when it is not JSON. */
export async function jsonBody(g: Guarded): Promise<unknown> {
  const body = await readJsonBody(g.req, g.reply);
  return body === BAD_JSON ? undefined : body;
}
