// The change feed over HTTP, in the public LEI area (its error shape, CORS and rate limit):
// GET /v1/changes pages the whole feed by cursor, GET /v1/entities/{lei}/changes one entity's.

import { NotReadyError } from "../engine/collection-view.js";
import { QueryStringError, queryRecord } from "../http/query-string.js";
import { RETRY_AFTER, type ParamDoc, type RouteOptions } from "../http/route.js";
import type { HttpServer, Reply } from "../http/server.js";
import { CHANGE_FIELDS, RECORD_TYPES, type ChangeQuery, type ChangeStore } from "./model.js";
import {
  changePage,
  changeQuery,
  ChangeQueryError,
  CHANGES_LIMIT,
  checkedLei,
  FEED_PARAMS,
  HISTORY_PARAMS,
  knownEntity,
  ORDERS,
} from "./query.js";

const STORE_RETRY_AFTER_SECONDS = 5;

const PARAM_DOCS: Record<(typeof FEED_PARAMS)[number], ParamDoc> = {
  since: {
    name: "since",
    description: "The cursor: the `next` of the page before; 0 (the default) starts at the oldest change kept",
    schema: { type: "string", pattern: "^[0-9]{1,18}$", default: "0" },
  },
  before: {
    name: "before",
    description: "Only changes older than this cursor: the `next` of the newest-first page before",
    schema: { type: "string", pattern: "^[0-9]{1,18}$" },
  },
  order: {
    name: "order",
    description: "`oldest` first (the default: a feed to follow with `since`) or `newest` first (what changed lately, paged with `before`)",
    schema: { type: "string", enum: [...ORDERS], default: "oldest" },
  },
  lei: { name: "lei", description: "Only this LEI's changes", schema: { type: "string", pattern: "^[0-9A-Za-z]{20}$" } },
  field: { name: "field", description: "Only this field's changes", schema: { type: "string", enum: [...CHANGE_FIELDS] } },
  type: { name: "type", description: "Only changes of this record type", schema: { type: "string", enum: [...RECORD_TYPES] } },
  limit: {
    name: "limit",
    description: `Rows per page (1–${CHANGES_LIMIT.max})`,
    schema: { type: "integer", minimum: 1, maximum: CHANGES_LIMIT.max, default: CHANGES_LIMIT.default },
  },
};

function options(name: string, doc: RouteOptions["doc"]): RouteOptions {
  return { name, area: "public", cors: true, rateLimited: true, doc };
}

const STORE_DOWN = {
  description: "No collection is live yet (history of an LEI), or the change feed's store cannot be read now",
  headers: RETRY_AFTER,
};

/** `store()`: the feed's store (null until state is open); `holds(lei)`: whether the live collection has the LEI. */
export function registerChangeRoutes(server: HttpServer, store: () => ChangeStore | null, holds: (lei: string) => boolean): void {
  server.route(
    "get",
    "/v1/changes",
    options("changes", {
      summary: "The change feed: field changes of every LEI, oldest or newest first, paged by cursor",
      description:
        "Each applied load compares every LEI it shares with the collection it replaces and records each changed field once per publication " +
        "(docs/changes.md). Pass a page's `next` as `since` for the next page; an empty page keeps the cursor, so a client polls with it. " +
        "With `order=newest` the rows come newest first, and `next` goes as `before`.",
      query: FEED_PARAMS.map((p) => PARAM_DOCS[p]),
      responses: {
        200: { description: "A page of changes and the next cursor", schema: { $ref: "#/components/schemas/ChangePage" } },
        400: { description: "A bad cursor, order, LEI, field, type or limit, or an unknown parameter: the message names the valid values" },
        503: STORE_DOWN,
      },
    }),
    (req, reply) => answer(reply, store(), () => changeQuery(queryRecord(req.rawQuery), FEED_PARAMS)),
  );

  server.route(
    "get",
    "/v1/entities/:lei/changes",
    options("entity-changes", {
      summary: "One entity's change history, oldest or newest first, paged by cursor",
      params: [{ name: "lei", description: "The LEI (20 letters or digits)", example: "529900SIW684OP07HP11" }],
      query: HISTORY_PARAMS.map((p) => PARAM_DOCS[p]),
      responses: {
        200: { description: "A page of the entity's changes and the next cursor", schema: { $ref: "#/components/schemas/ChangePage" } },
        400: { description: "A malformed LEI, a bad cursor, order, field, type or limit, or an unknown parameter" },
        404: { description: "The registry does not hold the LEI and the feed has no change of it" },
        503: STORE_DOWN,
      },
    }),
    (req, reply) =>
      answer(
        reply,
        store(),
        () => ({ ...changeQuery(queryRecord(req.rawQuery), HISTORY_PARAMS), lei: checkedLei(req.params[0]) }),
        (s, lei) => knownEntity(s, lei, holds),
      ),
  );

  for (const pattern of ["/v1/changes", "/v1/entities/:lei/changes"]) {
    server.route("any", pattern, { name: "method-not-allowed", area: "public", cors: true, rateLimited: true }, (req, r) => {
      r.header("Allow", "GET, OPTIONS").error(405, `method ${req.method} is not allowed here; use GET`);
    });
  }
}

async function answer(
  reply: Reply,
  store: ChangeStore | null,
  parse: () => ChangeQuery,
  known?: (store: ChangeStore, lei: string) => Promise<boolean>,
): Promise<void> {
  let query: ChangeQuery;
  try {
    query = parse();
  } catch (err) {
    if (err instanceof ChangeQueryError || err instanceof QueryStringError) return reply.error(400, err.message);
    throw err;
  }
  if (store === null) return unavailable(reply, "the change feed is not open yet");
  try {
    if (known && query.lei !== undefined && !(await known(store, query.lei))) {
      return reply.error(404, `no entity ${query.lei}: the registry does not hold it and the feed has no change of it`);
    }
    reply.json(200, JSON.stringify(await changePage(store, query)));
  } catch (err) {
    if (err instanceof NotReadyError) return unavailable(reply, `temporarily unavailable: ${err.message}`);
    unavailable(reply, `the change feed cannot be read now: ${(err as Error).message.split("\n")[0]}`);
  }
}

function unavailable(reply: Reply, message: string): void {
  reply.header("Retry-After", String(STORE_RETRY_AFTER_SECONDS)).error(503, message);
}
