// What every keyed route shares: Typesense's error shape {"message": ...}, the key check before
// the handler, and JSON bodies read with a cap.

import { BAD_JSON, BAD_JSON_MESSAGE, parseJsonBody } from "../http/json-schema.js";
import type { HttpServer, Reply, Request, RouteOptions } from "../http/server.js";
import { KeyAuth, type Caller } from "./auth.js";

export const keyedErrorBody = (message: string): string => JSON.stringify({ message });
export const MAX_JSON_BODY = 64 * 1024;
/** route options of handlers that read a JSON body */
export const JSON_BODY = { maxBodyBytes: MAX_JSON_BODY } as const;

export interface Guarded { caller: Caller; req: Request; reply: Reply }

/** Which action and collections a request needs (none, e.g. /keys), or why it is refused before any key is checked. */
export type Need = (req: Request) => { action: string; collections: string[] } | { status: number; message: string; retryAfterSeconds?: number };

/** An action on no collection in particular (keys, aliases, settings lists, admin). */
export const noCollection = (action: string): Need => () => ({ action, collections: [] });

export function keyedRoute(
  server: HttpServer, auth: KeyAuth, method: "get" | "post" | "put" | "del" | "patch", pattern: string, name: string,
  need: Need, handler: (g: Guarded) => void | Promise<void>, extra: Partial<RouteOptions> = {},
): void {
  const options: RouteOptions = { ...extra, name, errorBody: keyedErrorBody };
  server.route(method, pattern, options, (req, reply) => {
    const presented = KeyAuth.presented((header) => req.header(header), req.rawQuery);
    const wanted = need(req);
    if ("status" in wanted) {
      if (wanted.retryAfterSeconds !== undefined) reply.header("Retry-After", String(wanted.retryAfterSeconds));
      reply.error(wanted.status, wanted.message);
      return;
    }
    const outcome = auth.check(req.ip, presented, wanted.action, wanted.collections);
    if (!outcome.ok) { reply.error(outcome.status, outcome.message); return; }
    return handler({ caller: outcome.caller, req, reply });
  });
}

/** The body as a JSON value; replies 400 and returns undefined when it is not JSON. */
export async function jsonBody(g: Guarded): Promise<unknown> {
  const body = parseJsonBody(await g.req.body());
  if (body !== BAD_JSON) return body;
  g.reply.error(400, BAD_JSON_MESSAGE);
  return undefined;
}
