// The keyed engine API over the collections the public API serves, in Typesense's shape:
// collections, the alias `lei`, search, one document, and an admin reload. The data is
// reproduced as published, so writing single documents is a 405.

import { QueryStringError, queryRecord } from "../http/query-string.js";
import { NotReadyError, ShardFailedError, type Collection, type SearchOutcome } from "../engine/collection.js";
import { ENTITY_FIELD_TABLE, facetOfField } from "../engine/schema.js";
import { ScratchBytes } from "../engine/scratch-bytes.js";
import { BAD_JSON, readJsonBody } from "../http/json-schema.js";
import { NOT_READY_RESPONSE as notReady, NOT_READY_RETRY_AFTER_SECONDS, replyNotReady } from "../http/not-ready.js";
import { RETRY_AFTER } from "../http/route.js";
import { BodyTooLargeError, type HttpServer, type Request } from "../http/server.js";
import { ParamError, withQuery } from "../lei/search-params.js";
import { ImportRefused } from "../golden-copy/reloader.js";
import { isDiskFull } from "../store/disk-floor.js";
import type { LeiService } from "../lei/service.js";
import type { KeyAuth } from "../keys/auth.js";
import {
  JSON_BODY,
  jsonBody,
  keyedRoute,
  MAX_JSON_BODY,
  refuseKey,
  searchKeyIfPresented,
  type Guarded,
  type Need,
} from "../keys/keyed-route.js";
import { COLLECTION_PARAM, ENGINE_SEARCH_PARAMS, engineRef as ref } from "./api-schemas.js";
import { collectionAllowed } from "../keys/model.js";
import { applyEmbedded, unscoped, type ScopedParams } from "../keys/scoped.js";
import {
  EXPORT_RETRY_AFTER_SECONDS,
  exportOwner,
  ExportSlots,
  exportStallMs,
  MAX_EXPORTS_PER_KEY,
  MultiSearchBudget,
  MultiSearchTooLarge,
} from "./keyed-limits.js";
import { withoutStopwords, withPreset, type Preset, type SearchSettings, type StopwordSet } from "./search-settings.js";
import { registerSettingsRoutes } from "./settings-routes.js";
import { synonymIndexOf } from "./synonyms.js";
import { fromTypesense, toTypesense } from "./typesense-search.js";

/** An import the server's disk cannot take: the server's trouble, 507, in the keyed API's shape. */
const DISK_FULL_MESSAGE =
  "the server's disk is full, so the upload was not kept; the live collection stays; retry once the operator has freed space";

export const ALIAS = "lei";
const MAX_MULTI_SEARCHES = 50;
/** Typesense's words for a collection not served yet. */
const NOT_READY = "Not Ready or Lagging";
const ALIAS_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

interface UserAlias {
  name: string;
  collection_name: string;
}
const MAX_UPLOAD_BYTES = 16 * 2 ** 30; // the real golden copy's CSV is about 5 GB
const EXPORT_PARAMS = new Set(["filter_by", "x-typesense-api-key", "x-search-api-key", "include_fields", "exclude_fields"]);

export interface CollectionsApiDeps {
  auth: KeyAuth;
  settings: SearchSettings;
  service: LeiService;
  collection: Collection;
  /** starts a reload of the configured source (the admin call) */
  reload: () => void;
  /**
   * loads an uploaded golden copy as the live collection; resolves with its name and records,
   * rejects with ImportRefused (golden-copy/reloader.ts) when the file is refused
   */
  importFile: (path: string, opts: { allowShrink: boolean }) => Promise<{ name: string; records: number }>;
  log: (line: string) => void;
  /** where uploads are written (the data dir's downloads/) */
  uploadDir: string;
}

export function registerCollectionRoutes(server: HttpServer, deps: CollectionsApiDeps): void {
  const { auth, service, collection, settings } = deps;
  const live = (): { name: string; docs: number; loadedAt: string } | null => collection.current;

  /**
   * The names a key may be authorised by for a collection named in a request: the name, and
   * through aliases (`lei`, or one of the user's pointing at `lei` or the live collection) their
   * targets. Null when it names nothing live.
   */
  const resolve = (name: string): string[] | null => {
    const current = live();
    if (!current) return null;
    if (name === ALIAS) return [ALIAS, current.name];
    if (name === current.name) return [name];
    const target = settings.get<UserAlias>("alias", name)?.collection_name;
    if (target === ALIAS) return [name, ALIAS, current.name];
    if (target === current.name) return [name, current.name];
    return null;
  };

  /** The collection named in the path, for the key check; 404 if unknown. */
  const named =
    (action: string): Need =>
    (req: Request) => {
      if (!live()) return { status: 503, message: NOT_READY, retryAfterSeconds: NOT_READY_RETRY_AFTER_SECONDS };
      const names = resolve(req.params[0] ?? "");
      return names ? { action, collections: names } : { status: 404, message: `Collection ${req.params[0]} not found` };
    };
  registerSettingsRoutes(server, auth, settings, named);

  const describe = (c: { name: string; docs: number; loadedAt: string }): Record<string, unknown> => ({
    name: c.name,
    num_documents: c.docs,
    created_at: Math.floor(Date.parse(c.loadedAt) / 1000),
    fields: DOCUMENT_FIELDS,
    default_sorting_field: "",
    enable_nested_fields: false,
  });

  keyedRoute(
    server,
    auth,
    {
      method: "get",
      path: "/collections",
      name: "collections-list",
      action: "collections:list",
      doc: {
        summary: "List collections",
        description: "The live collection, where the key may see it.",
        responses: { 200: { description: "The collections", schema: { type: "array", items: ref("Collection") } } },
      },
    },
    (g) => {
      const current = live();
      const visible = current && (g.caller.kind === "bootstrap" || collectionAllowed(g.caller.key.collections, [current.name, ALIAS]));
      g.reply.json(200, JSON.stringify(visible ? [describe(current)] : []));
    },
  );

  keyedRoute(
    server,
    auth,
    {
      method: "get",
      path: "/collections/:name",
      name: "collections-get",
      action: "collections:get",
      scope: named,
      doc: {
        summary: "Get a collection",
        params: [COLLECTION_PARAM],
        responses: {
          200: { description: "The collection", schema: ref("Collection") },
          404: { description: "No such collection" },
          503: notReady,
        },
      },
    },
    (g) => {
      g.reply.json(200, JSON.stringify(describe(live()!)));
    },
  );

  keyedRoute(
    server,
    auth,
    {
      method: "del",
      path: "/collections/:name",
      name: "collections-delete",
      action: "collections:delete",
      scope: named,
      doc: "refusal", // the only collection is the live one: 409, it is replaced by the next load
    },
    (g) => {
      g.reply.error(409, `${live()!.name} is the live collection (alias ${ALIAS}); it is replaced by the next load, not deleted`);
    },
  );

  // Aliases: `lei` always names the live collection and moves with each load; users may add
  // their own, pointing at `lei` (what survives reloads) or at the live collection's own name.
  const allAliases = (): UserAlias[] => {
    const current = live();
    return [...(current ? [{ name: ALIAS, collection_name: current.name }] : []), ...settings.list<UserAlias>("alias")];
  };
  const maySee = (g: Guarded, a: UserAlias): boolean =>
    g.caller.kind === "bootstrap" || collectionAllowed(g.caller.key.collections, resolve(a.name) ?? [a.name]);

  const aliasName = { name: "name", description: "The alias's name", example: "entities" };
  keyedRoute(
    server,
    auth,
    {
      method: "get",
      path: "/aliases",
      name: "aliases-list",
      action: "aliases:list",
      doc: {
        summary: "List aliases",
        responses: {
          200: {
            description: "lei and the user's aliases",
            schema: { type: "object", required: ["aliases"], properties: { aliases: { type: "array", items: ref("Alias") } } },
          },
        },
      },
    },
    (g) => {
      g.reply.json(200, JSON.stringify({ aliases: allAliases().filter((a) => maySee(g, a)) }));
    },
  );

  keyedRoute(
    server,
    auth,
    {
      method: "get",
      path: "/aliases/:name",
      name: "aliases-get",
      action: "aliases:get",
      doc: {
        summary: "Get an alias",
        params: [aliasName],
        responses: { 200: { description: "The alias", schema: ref("Alias") }, 404: { description: "No such alias" } },
      },
    },
    (g) => {
      const alias = allAliases().find((a) => a.name === g.req.params[0]);
      if (!alias || !maySee(g, alias)) g.reply.error(404, "Not Found");
      else g.reply.json(200, JSON.stringify(alias));
    },
  );

  keyedRoute(
    server,
    auth,
    {
      method: "put",
      path: "/aliases/:name",
      name: "aliases-upsert",
      action: "aliases:upsert",
      options: JSON_BODY,
      doc: {
        summary: "Create or change an alias",
        description: "Point it at lei (which follows every load) or at the live collection's name.",
        params: [aliasName],
        body: {
          schema: { type: "object", required: ["collection_name"], properties: { collection_name: { type: "string" } } },
          example: { collection_name: "lei" },
        },
        responses: {
          200: { description: "The alias", schema: ref("Alias") },
          404: { description: "The target is not lei or the live collection" },
          409: { description: "The name is lei or the live collection's" },
        },
      },
    },
    async (g) => {
      const name = g.req.params[0];
      const body = await jsonBody(g);
      if (body === undefined) return;
      const target = (body as { collection_name?: unknown } | null)?.collection_name;
      const extra =
        typeof body === "object" && body !== null ? Object.keys(body).filter((k) => k !== "collection_name" && k !== "name") : [];
      if (!ALIAS_NAME.test(name)) {
        g.reply.error(400, `invalid alias name '${name}'`);
        return;
      }
      if (typeof target !== "string" || extra.length > 0) {
        g.reply.error(400, 'body must be {"collection_name": "..."}');
        return;
      }
      const current = live();
      if (name === ALIAS) {
        g.reply.error(409, `the alias ${ALIAS} is moved by each load, not by hand`);
        return;
      }
      if (current && name === current.name) {
        g.reply.error(409, `Name \`${name}\` conflicts with an existing collection name.`);
        return;
      }
      if (target !== ALIAS && target !== current?.name) {
        g.reply.error(404, `Collection ${target} not found; point aliases at ${ALIAS}`);
        return;
      }
      if (g.caller.kind !== "bootstrap" && !collectionAllowed(g.caller.key.collections, [name])) {
        g.reply.error(403, `the API key does not cover the collection '${name}'`);
        return;
      }
      g.reply.json(200, JSON.stringify(await settings.put<UserAlias>("alias", name, { name, collection_name: target })));
    },
  );

  keyedRoute(
    server,
    auth,
    {
      method: "del",
      path: "/aliases/:name",
      name: "aliases-delete",
      action: "aliases:delete",
      doc: {
        summary: "Delete an alias",
        params: [aliasName],
        responses: {
          200: { description: "The deleted alias", schema: ref("Alias") },
          404: { description: "No such alias" },
          409: { description: "lei is not deleted by hand" },
        },
      },
    },
    async (g) => {
      const name = g.req.params[0];
      if (name === ALIAS) {
        g.reply.error(409, `the alias ${ALIAS} is moved by each load, not by hand`);
        return;
      }
      const alias = settings.get<UserAlias>("alias", name);
      if (!alias || !maySee(g, alias)) {
        g.reply.error(404, "Not Found");
        return;
      }
      await settings.delete("alias", name);
      g.reply.json(200, JSON.stringify(alias));
    },
  );

  const answerScratch = new ScratchBytes();
  /**
   * One search in Typesense's terms: the preset fills what is not set, stopwords leave q, and
   * each synonym variant of q is searched, their hits merged. ParamError on bad parameters. The
   * answer goes to `use` as scratch (engine/scratch-bytes.ts), valid during `use` only. A
   * multi_search's searches are charged to its budget before they run.
   */
  const searchAnswer = async <T>(
    { params, scopeFilter }: ScopedParams,
    collectionName: string,
    use: (answer: Buffer) => T,
    budget?: MultiSearchBudget,
  ): Promise<T> => {
    // params is the route's own copy: the settings' parameters are taken out of it in place (a
    // rest pattern or a spread per request kept its short-lived objects alive, see roundQuery()
    // in engine/search-rounds.ts)
    const presetName = params.preset;
    delete params.preset;
    let effective = params;
    if (presetName !== undefined) {
      const preset = settings.get<Preset>("preset", presetName);
      if (!preset) throw new SettingNotFound(`Preset \`${presetName}\` not found.`);
      effective = withPreset(params, preset);
    }
    // a preset may name the stopword set, so it is read after the preset is applied
    const stopwordsName = effective.stopwords;
    delete effective.stopwords;
    if (stopwordsName !== undefined) {
      const set = settings.get<StopwordSet>("stopwords", stopwordsName);
      if (!set) throw new SettingNotFound(`Stopword \`${stopwordsName}\` not found.`);
      if (effective.q !== undefined) effective.q = withoutStopwords(effective.q, set);
    }
    const query = fromTypesense(effective, scopeFilter);
    const render = (outcome: SearchOutcome): T => use(toTypesense(outcome, query, collectionName, answerScratch));
    if (query.empty) return render(service.emptyOutcome());
    const variants = query.params.q === null ? [null] : synonymIndexOf(settings).variants(query.params.q);
    budget?.charge(query.page, query.perPage, variants.length);
    if (variants.length === 1) return service.searchOutcomeWith(withQuery(query.params, variants[0]), render);
    return service.searchVariantsWith(
      variants.map((q) => withQuery(query.params, q)),
      render,
    );
  };

  keyedRoute(
    server,
    auth,
    {
      method: "get",
      path: "/collections/:name/documents/search",
      name: "documents-search",
      action: "documents:search",
      scope: named,
      // open to pages on other origins with a search key, as Typesense's --enable-cors does
      options: { cors: true },
      doc: {
        summary: "Search documents (Typesense's parameters and answer)",
        params: [COLLECTION_PARAM],
        query: ENGINE_SEARCH_PARAMS,
        responses: {
          200: { description: "A page of hits", schema: ref("SearchResult") },
          400: { description: "A bad or unknown parameter" },
          404: { description: "No such collection, preset or stopword set" },
          503: notReady,
        },
      },
    },
    async (g) => {
      // the key parameters stay in: fromTypesense accepts them and gives them no effect
      let raw: Record<string, string>;
      try {
        raw = queryRecord(g.req.rawQuery);
      } catch (err) {
        failed(g, err);
        return;
      }
      const merged = g.caller.kind === "scoped" ? applyEmbedded(raw, g.caller.embedded) : unscoped(raw);
      try {
        await searchAnswer(merged, g.req.params[0], (answer) => g.reply.json(200, answer));
      } catch (err) {
        failed(g, err);
      }
    },
  );

  // Bulk export for partners: JSON lines in LEI order streamed with backpressure, a page per slice at a time,
  // so memory stays flat whatever the size of the collection. A reader that stops reading is cut
  // off after the stall timeout, and a key runs a few exports at a time (keyed-limits.ts).
  const exportSlots = new ExportSlots(MAX_EXPORTS_PER_KEY);
  const stallMs = exportStallMs();
  keyedRoute(
    server,
    auth,
    {
      method: "get",
      path: "/collections/:name/documents/export",
      name: "documents-export",
      action: "documents:export",
      scope: named,
      doc: {
        summary: "Export documents as JSON lines",
        description: "Streamed with backpressure; a reader that takes nothing for 30 s is cut off; a key runs at most 4 exports at once.",
        params: [COLLECTION_PARAM],
        query: [
          { name: "filter_by", description: "As in search", example: "country:LU" },
          { name: "include_fields", description: "Accepted" },
          { name: "exclude_fields", description: "Accepted" },
        ],
        responses: {
          200: { description: "One LegalEntity per line", contentType: "application/x-ndjson", schema: { type: "string" } },
          400: { description: "A bad filter or unknown parameter" },
          404: { description: "No such collection" },
          429: { description: "The key already runs 4 exports", headers: RETRY_AFTER },
          503: notReady,
        },
      },
    },
    async (g) => {
      let filters;
      let exclude;
      try {
        const raw = queryRecord(g.req.rawQuery);
        for (const k of Object.keys(raw)) if (!EXPORT_PARAMS.has(k)) throw new ParamError(`unknown export parameter '${k}'`);
        const query = fromTypesense({ q: "*", filter_by: raw.filter_by ?? "" });
        if (query.empty) {
          g.reply.stream("application/x-ndjson").end();
          return;
        }
        filters = query.params.filters;
        exclude = query.params.exclude ?? {};
      } catch (err) {
        failed(g, err);
        return;
      }
      const slot = exportSlots.take(exportOwner(g.caller));
      if (!slot) {
        g.reply.header("Retry-After", String(EXPORT_RETRY_AFTER_SECONDS));
        g.reply.error(
          429,
          `this API key already runs ${MAX_EXPORTS_PER_KEY} exports, the most it may at once; retry when one has finished`,
        );
        return;
      }
      const out = g.reply.stream("application/x-ndjson", stallMs);
      try {
        await collection.exportLines(filters, exclude, (lines) => out.write(lines));
      } finally {
        out.end();
        slot.release();
      }
    },
  );

  // A golden-copy CSV (or zip) uploaded as the body becomes a fresh collection, checked like a
  // reload (at least 90 % of the live collection's records unless allow_shrink=true); the body
  // goes to disk as it arrives, never into memory. Refusals name no server path.
  keyedRoute(
    server,
    auth,
    {
      method: "post",
      path: "/collections/:name/documents/import",
      name: "documents-import",
      action: "documents:import",
      scope: named,
      options: { uploadDir: deps.uploadDir, maxUploadBytes: MAX_UPLOAD_BYTES },
      doc: {
        summary: "Replace the live collection with an uploaded golden copy",
        description:
          "The body is a GLEIF golden-copy CSV or zip (up to 16 GiB), written to disk as it arrives, then loaded and checked like a reload.",
        params: [COLLECTION_PARAM],
        query: [
          {
            name: "allow_shrink",
            description: "true to accept fewer than 90 % of the live collection's records",
            schema: { type: "string", enum: ["true", "false"] },
          },
        ],
        body: { schema: { type: "string", format: "binary" }, contentType: "application/octet-stream", required: true },
        responses: {
          200: {
            description: "Loaded and live",
            schema: {
              type: "object",
              required: ["success", "collection", "num_imported"],
              properties: { success: { type: "boolean" }, collection: { type: "string" }, num_imported: { type: "integer" } },
            },
          },
          400: { description: "The file was refused; the live collection stays" },
          404: { description: "No such collection" },
          413: { description: "Over 16 GiB" },
          503: notReady,
          507: {
            description: "The server's disk is full (or would fall below --disk-floor-mb); nothing was kept, the live collection stays",
          },
        },
      },
    },
    async (g) => {
      let shrink: string | undefined;
      try {
        shrink = queryRecord(g.req.rawQuery).allow_shrink;
      } catch (err) {
        failed(g, err);
        return;
      }
      if (shrink !== undefined && shrink !== "true" && shrink !== "false") {
        g.reply.error(400, "allow_shrink must be true or false");
        return;
      }
      let path: string;
      try {
        path = await g.req.upload();
      } catch (err) {
        if (err instanceof BodyTooLargeError) throw err;
        if (isDiskFull(err)) {
          // the server's disk, not the client's file: the partial upload is already gone
          deps.log(`import refused: the server's disk is full: ${(err as Error).message}`);
          g.reply.error(507, DISK_FULL_MESSAGE);
          return;
        }
        const code = (err as NodeJS.ErrnoException).code;
        deps.log(`import refused: the upload failed: ${(err as Error).message}`);
        g.reply.error(
          400,
          code ? `upload failed: the server could not store the body (${code})` : `upload failed: ${(err as Error).message}`,
        );
        return;
      }
      try {
        const loaded = await deps.importFile(path, { allowShrink: shrink === "true" });
        g.reply.json(200, JSON.stringify({ success: true, collection: loaded.name, num_imported: loaded.records }));
      } catch (err) {
        if (!(err instanceof ImportRefused)) throw err;
        if (err.diskFull) {
          g.reply.error(507, DISK_FULL_MESSAGE);
          return;
        }
        const hint = err.tooFew ? "; to replace it with a smaller collection on purpose, send allow_shrink=true" : "";
        g.reply.error(400, `import refused, the live collection stays: ${err.message}${hint}`);
      }
    },
  );

  // Each search of a multi_search is authorised on its own (its collection, and its own key when
  // it carries one). Before any of that, the caller must hold a key that may search at all: the
  // request's, or (without one) every search's own.
  server.route<string | null>(
    "post",
    "/multi_search",
    {
      name: "multi-search",
      area: "engine",
      maxBodyBytes: MAX_JSON_BODY,
      // Typesense's browser client posts its JSON as text/plain, which spares a CORS preflight
      bodyTypes: "json-or-text",
      cors: true,
      auth: searchKeyIfPresented(auth),
      doc: {
        summary: "Run several searches in one request",
        description:
          "Up to 50 searches, each authorised on its own: its collection, with its own `x-typesense-api-key` when it carries one, else the request's key, " +
          "which needs the action `documents:search`. All searches together may rank at most 100,000 hits (page × per_page × synonym variants).",
        query: [{ name: "collection", description: "The collection of searches that name none" }],
        body: {
          schema: ref("MultiSearchRequest"),
          required: true,
          example: { searches: [{ collection: "lei", q: "deutsche bank", query_by: "legalName" }] },
        },
        responses: {
          200: { description: "One result per search, in order: a search result or {code, error}", schema: ref("MultiSearchResult") },
          400: { description: "Not a list of searches, too many, or too large" },
        },
      },
    },
    async (req, reply, presented) => {
      const body = await readJsonBody(req, reply);
      if (body === BAD_JSON) return;
      const searches = (body as { searches?: unknown } | null)?.searches;
      if (!Array.isArray(searches)) {
        reply.error(400, "Missing `searches` array.");
        return;
      }
      const ownKey = (item: unknown): string | undefined => {
        const o = typeof item === "object" && item !== null ? (item as Record<string, unknown>) : {};
        const k = o["x-typesense-api-key"] ?? o["x-search-api-key"];
        return typeof k === "string" ? k : undefined;
      };
      if (presented === null && (searches.length === 0 || !searches.every((s) => ownKey(s) !== undefined))) {
        const caller = auth.check(req.ip, presented, "documents:search", []);
        if (!caller.ok) {
          refuseKey(reply, caller);
          return;
        }
      }
      // parameters for every search, read as the single searches read theirs (a bad escape is a 400)
      let common: Record<string, string>;
      try {
        common = queryRecord(req.rawQuery);
      } catch (err) {
        if (!(err instanceof QueryStringError)) throw err;
        reply.error(400, err.message);
        return;
      }
      if (searches.length > MAX_MULTI_SEARCHES) {
        reply.error(400, `Number of multi searches exceeds \`limit_multi_searches\` parameter (${MAX_MULTI_SEARCHES}).`);
        return;
      }
      const results: (Buffer | string)[] = [];
      const budget = new MultiSearchBudget();
      for (const item of searches as unknown[]) {
        if (typeof item !== "object" || item === null || Array.isArray(item)) {
          reply.error(400, "Each search must be an object.");
          return;
        }
        const own = Object.fromEntries(Object.entries(item).map(([k, v]) => [k, String(v)]));
        const name = own.collection ?? common.collection ?? "";
        const key = own["x-typesense-api-key"] ?? own["x-search-api-key"] ?? presented;
        const names = resolve(name);
        if (!names) {
          results.push(JSON.stringify({ code: 404, error: `Collection ${name} not found` }));
          continue;
        }
        const outcome = auth.check(req.ip, key, "documents:search", names);
        if (!outcome.ok) {
          refuseKey(reply, outcome);
          return;
        }
        const params = Object.assign({}, common, own);
        delete params.collection;
        const merged = outcome.caller.kind === "scoped" ? applyEmbedded(params, outcome.caller.embedded) : unscoped(params);
        try {
          results.push(await searchAnswer(merged, name, (answer) => Buffer.from(answer), budget));
        } catch (err) {
          if (err instanceof MultiSearchTooLarge) {
            reply.error(400, err.message);
            return;
          }
          if (!(err instanceof ParamError) && !(err instanceof SettingNotFound)) throw err;
          results.push(JSON.stringify({ code: err instanceof SettingNotFound ? 404 : 400, error: err.message }));
        }
      }
      reply.json(
        200,
        Buffer.concat([
          Buffer.from('{"results":['),
          ...results.flatMap((r, i) => [Buffer.from(i > 0 ? "," : ""), typeof r === "string" ? Buffer.from(r) : r]),
          Buffer.from("]}"),
        ]),
      );
    },
  );

  keyedRoute(
    server,
    auth,
    {
      method: "get",
      path: "/collections/:name/documents/:id",
      name: "documents-get",
      action: "documents:get",
      scope: named,
      doc: {
        summary: "Get one document by LEI",
        params: [COLLECTION_PARAM, { name: "id", description: "The LEI", example: "529900SIW684OP07HP11" }],
        responses: {
          200: { description: "The document", schema: ref("LegalEntity") },
          404: { description: "No such collection or document" },
          503: notReady,
        },
      },
    },
    async (g) => {
      try {
        service.entity(g.req.params[1] ?? "", (found) => {
          if (found.kind === "found") g.reply.json(200, found.json);
          else g.reply.error(404, `Could not find a document with id: ${g.req.params[1]}`);
        });
      } catch (err) {
        failed(g, err);
      }
    },
  );

  const readOnly = "documents are reproduced from the GLEIF golden copy as published and cannot be written one by one";
  for (const [method, pattern] of [
    ["post", "/collections/:name/documents"],
    ["patch", "/collections/:name/documents"],
    ["del", "/collections/:name/documents"],
    ["patch", "/collections/:name/documents/:id"],
    ["del", "/collections/:name/documents/:id"],
    ["put", "/collections/:name/documents/:id"],
  ] as const) {
    server.route(method, pattern, { name: "documents-write", area: "engine", doc: "refusal" }, (_req, reply) => reply.error(405, readOnly));
  }

  keyedRoute(
    server,
    auth,
    {
      method: "post",
      path: "/operations/reload",
      name: "admin-reload",
      action: "operations/reload:create",
      doc: {
        summary: "Reload the configured source now",
        description: "Starts in the background; /v1/stats tells when the new collection is live.",
        responses: {
          202: {
            description: "Started",
            schema: {
              type: "object",
              required: ["success", "message"],
              properties: { success: { type: "boolean" }, message: { type: "string" } },
            },
          },
        },
      },
    },
    (g) => {
      deps.reload();
      g.reply.json(
        202,
        JSON.stringify({ success: true, message: "reload of the configured source started; /v1/stats tells when it is live" }),
      );
    },
  );
}

class SettingNotFound extends Error {}

function failed(g: Guarded, err: unknown): void {
  if (err instanceof SettingNotFound) g.reply.error(404, err.message);
  else if (err instanceof ParamError || err instanceof QueryStringError) g.reply.error(400, err.message);
  else if (err instanceof NotReadyError || err instanceof ShardFailedError) replyNotReady(g.reply, NOT_READY);
  else throw err;
}

/**
 * The collection's fields as Typesense lists them: the entity's stored fields (facet where
 * facet_by takes them), and `otherNames`, searched (query_by) but not part of the stored document.
 */
const DOCUMENT_FIELDS = [
  ...ENTITY_FIELD_TABLE.map((f) => ({ name: f.name as string, type: "string", facet: facetOfField(f.name) !== null })),
  { name: "otherNames", type: "string[]", facet: false },
].map((f) => ({ ...f, optional: f.name !== "lei" && f.name !== "legalName", index: true }));
