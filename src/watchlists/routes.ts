// The watchlists' routes, under the tenant key of /v1/webhooks and in its error shape
// ({"error": "..."}): another tenant's list is a 404. Every LEI is checked (form and check
// digits) before anything is stored; a refusal stores nothing.

import { describeSchemaError } from "../http/json-schema.js";
import type { Reply } from "../http/server.js";
import type { CsvBody, TenantRoute } from "../webhooks/routes.js";
import { LIST_BODY, WATCHLIST_DOCS, watchValidators } from "./api-docs.js";
import { leiProblem, leisFromCsv, leisFromList, type LeiInput } from "./lei-input.js";
import type { WatchFilter, Watchlist, WatchStore } from "./watch-store.js";

const isCsv = (body: unknown): body is CsvBody => typeof body === "object" && body !== null && Buffer.isBuffer((body as CsvBody).csv);

/** The LEIs of an add or remove body (JSON {"leis": [...]} or CSV), or a 400 already sent. */
function leisOfBody(body: unknown, reply: Reply): string[] | null {
  let input: LeiInput;
  if (isCsv(body)) input = leisFromCsv(body.csv);
  else if (!watchValidators.leis(body)) {
    reply.error(400, describeSchemaError("LEI list", watchValidators.leis.errors));
    return null;
  } else input = leisFromList(body.leis);
  if (!input.ok) {
    reply.error(400, input.message);
    return null;
  }
  return input.leis;
}

const publicList = (w: Watchlist): Record<string, unknown> => ({
  id: w.id,
  name: w.name,
  filter: w.filter,
  lei_count: Number(w.lei_count),
  created_at: w.created_at,
  updated_at: w.updated_at,
});

export function registerWatchlistRoutes(route: TenantRoute, store: WatchStore): void {
  const doc = (name: string): (typeof WATCHLIST_DOCS)[string] => WATCHLIST_DOCS[name];

  route(
    "post",
    "/v1/watchlists",
    "watchlists-create",
    doc("watchlists-create"),
    LIST_BODY,
    async ({ req, reply, tenantId, body }) => {
      let name = new URLSearchParams(req.rawQuery).get("name");
      let leis: string[] = [];
      let filter: WatchFilter | null = null;
      if (isCsv(body)) {
        const input = leisFromCsv(body.csv);
        if (!input.ok) {
          reply.error(400, input.message);
          return;
        }
        leis = input.leis;
      } else {
        if (!watchValidators.create(body)) {
          reply.error(400, describeSchemaError("watchlist", watchValidators.create.errors));
          return;
        }
        if (body.leis) {
          const input = leisFromList(body.leis);
          if (!input.ok) {
            reply.error(400, input.message);
            return;
          }
          leis = input.leis;
        }
        if (body.filter) {
          const [kind, parent] = Object.entries(body.filter)[0] as [keyof WatchFilter, string];
          const problem = leiProblem(parent);
          if (problem) {
            reply.error(400, `filter.${kind}: ${problem}`);
            return;
          }
          filter = { [kind]: parent.trim().toUpperCase() };
        }
        name = body.name ?? name;
      }
      if (name !== null && (name.length === 0 || name.length > 200)) {
        reply.error(400, "name must be 1 to 200 characters");
        return;
      }
      const made = await store.create(tenantId, name ?? "watchlist", filter, leis);
      if ("over" in made) reply.error(409, `${made.over}; nothing stored`);
      else reply.json(201, JSON.stringify(publicList(made)));
    },
    "json-or-csv",
  );

  route("get", "/v1/watchlists", "watchlists-list", doc("watchlists-list"), null, async ({ reply, tenantId }) => {
    reply.json(200, JSON.stringify({ watchlists: (await store.list(tenantId)).map(publicList) }));
  });

  route("get", "/v1/watchlists/:id", "watchlists-get", doc("watchlists-get"), null, async ({ req, reply, tenantId }) => {
    const q = new URLSearchParams(req.rawQuery);
    const limitRaw = q.get("limit") ?? "100";
    if (!/^\d{1,4}$/.test(limitRaw) || Number(limitRaw) < 1 || Number(limitRaw) > 1000) {
      reply.error(400, "limit must be an integer from 1 to 1000");
      return;
    }
    const after = (q.get("after") ?? "").trim().toUpperCase();
    if (after.length > 20) {
      reply.error(400, "after must be an LEI from next_after");
      return;
    }
    const w = await store.get(tenantId, req.params[0]);
    if (!w) {
      reply.error(404, "no such watchlist");
      return;
    }
    const limit = Number(limitRaw);
    const leis = await store.leisOf(w.id, after, limit);
    reply.json(200, JSON.stringify({ ...publicList(w), leis, next_after: leis.length === limit ? leis[leis.length - 1] : null }));
  });

  const change = (how: "add" | "remove") => async (ctx: { req: { params: string[] }; reply: Reply; tenantId: string; body: unknown }) => {
    const { req, reply, tenantId, body } = ctx;
    const id = req.params[0];
    // an unknown list is a 404 before its body is judged
    if (!(await store.get(tenantId, id))) {
      reply.error(404, "no such watchlist");
      return;
    }
    const leis = leisOfBody(body, reply);
    if (leis === null) return;
    const done = how === "add" ? await store.add(tenantId, id, leis) : await store.remove(tenantId, id, leis);
    if (done === null) {
      reply.error(404, "no such watchlist");
      return;
    }
    if ("over" in done) {
      reply.error(409, `${done.over}; nothing stored`);
      return;
    }
    const now = await store.get(tenantId, id);
    reply.json(200, JSON.stringify({ id, ...done, lei_count: Number(now?.lei_count ?? 0) }));
  };
  route("post", "/v1/watchlists/:id/leis", "watchlists-add", doc("watchlists-add"), LIST_BODY, change("add"), "json-or-csv");
  route(
    "post",
    "/v1/watchlists/:id/leis/remove",
    "watchlists-remove",
    doc("watchlists-remove"),
    LIST_BODY,
    change("remove"),
    "json-or-csv",
  );

  route("del", "/v1/watchlists/:id", "watchlists-delete", doc("watchlists-delete"), null, async ({ req, reply, tenantId }) => {
    if (!(await store.delete(tenantId, req.params[0]))) {
      reply.error(404, "no such watchlist");
      return;
    }
    reply.json(200, JSON.stringify({ id: req.params[0], deleted: true }));
  });
}
