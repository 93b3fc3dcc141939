// Typesense's synonym, preset and stopword endpoints over SearchSettings. Bodies are validated
// by the schemas below; a name is 1–128 characters of letters, digits, '_', '-' and '.'.

import type { ValidateFunction } from "ajv";
import { ajv, describeSchemaError } from "../http/json-schema.js";
import type { HttpServer } from "../http/server.js";
import type { KeyAuth } from "../keys/auth.js";
import type { OperationDoc, ParamDoc } from "../http/route.js";
import { JSON_BODY, jsonBody, keyedRoute, type Guarded, type KeyedRoute, type Need } from "../keys/keyed-route.js";
import { COLLECTION_PARAM, engineRef as ref } from "./api-schemas.js";
import type { Preset, SearchSettings, StopwordSet, SynonymRule } from "./search-settings.js";

const NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const phrase = { type: "string", minLength: 1, maxLength: 200 } as const;

const synonymSchema = {
  type: "object",
  additionalProperties: false,
  required: ["synonyms"],
  description: "Multi-way when root is absent (every phrase stands for the others); one-way from root otherwise.",
  properties: {
    synonyms: { type: "array", minItems: 1, maxItems: 50, items: phrase },
    root: phrase,
    id: { type: "string" },
    locale: { type: "string" },
    symbols_to_index: { type: "array" },
  },
} as const;
const presetSchema = {
  type: "object",
  additionalProperties: false,
  required: ["value"],
  description: "Search parameters applied with preset=<name>; the request's and a scoped key's own parameters win.",
  properties: { value: { type: "object", additionalProperties: { type: ["string", "number", "boolean"] } }, name: { type: "string" } },
} as const;
const stopwordsSchema = {
  type: "object",
  additionalProperties: false,
  required: ["stopwords"],
  description: "Words dropped from q with stopwords=<name>.",
  properties: {
    stopwords: { type: "array", minItems: 1, maxItems: 1000, items: phrase },
    locale: { type: "string" },
    id: { type: "string" },
    name: { type: "string" },
  },
} as const;

const validateSynonym = ajv.compile<{ synonyms: string[]; root?: string }>(synonymSchema);
const validatePreset = ajv.compile<{ value: Preset["value"] }>(presetSchema);
const validateStopwords = ajv.compile<{ stopwords: string[]; locale?: string }>(stopwordsSchema);

async function validBody<T>(g: Guarded, validate: ValidateFunction<T>): Promise<T | undefined> {
  const body = await jsonBody(g);
  if (body === undefined) return undefined;
  if (!validate(body)) {
    g.reply.error(400, describeSchemaError("body", validate.errors));
    return undefined;
  }
  return body;
}

const ruleId: ParamDoc = { name: "id", description: "The rule's id", example: "ltd-limited" };
const settingName: ParamDoc = { name: "name", description: "The set's name", example: "funds" };
const listOf = (key: string, item: string): Record<string, unknown> => ({
  type: "object",
  required: [key],
  properties: { [key]: { type: "array", items: ref(item) } },
});
const gone = (key: string): Record<string, unknown> => ({ type: "object", required: [key], properties: { [key]: { type: "string" } } });

/** The OpenAPI operations of the settings routes, by route name. */
const DOCS: Record<string, OperationDoc> = {
  "synonyms-upsert": {
    summary: "Create or replace a synonym rule",
    params: [COLLECTION_PARAM, ruleId],
    body: { schema: synonymSchema, example: { synonyms: ["ltd", "limited"] } },
    responses: { 200: { description: "The rule", schema: ref("SynonymRule") }, 404: { description: "No such collection" } },
  },
  "synonyms-list": {
    summary: "List synonym rules",
    params: [COLLECTION_PARAM],
    responses: { 200: { description: "The rules", schema: listOf("synonyms", "SynonymRule") }, 404: { description: "No such collection" } },
  },
  "synonyms-get": {
    summary: "Get a synonym rule",
    params: [COLLECTION_PARAM, ruleId],
    responses: { 200: { description: "The rule", schema: ref("SynonymRule") }, 404: { description: "No such collection or rule" } },
  },
  "synonyms-delete": {
    summary: "Delete a synonym rule",
    params: [COLLECTION_PARAM, ruleId],
    responses: { 200: { description: "Deleted", schema: gone("id") }, 404: { description: "No such collection or rule" } },
  },
  "presets-upsert": {
    summary: "Create or replace a search preset",
    params: [settingName],
    body: { schema: presetSchema, example: { value: { query_by: "legalName", per_page: 10 } } },
    responses: { 200: { description: "The preset", schema: ref("Preset") } },
  },
  "presets-list": {
    summary: "List search presets",
    responses: { 200: { description: "The presets", schema: listOf("presets", "Preset") } },
  },
  "presets-get": {
    summary: "Get a search preset",
    params: [settingName],
    responses: { 200: { description: "The preset", schema: ref("Preset") }, 404: { description: "No such preset" } },
  },
  "presets-delete": {
    summary: "Delete a search preset",
    params: [settingName],
    responses: { 200: { description: "Deleted", schema: gone("name") }, 404: { description: "No such preset" } },
  },
  "stopwords-upsert": {
    summary: "Create or replace a stopword set",
    params: [settingName],
    body: { schema: stopwordsSchema, example: { stopwords: ["the", "of"], locale: "en" } },
    responses: { 200: { description: "The set", schema: ref("StopwordSet") } },
  },
  "stopwords-list": {
    summary: "List stopword sets",
    responses: { 200: { description: "The sets", schema: listOf("stopwords", "StopwordSet") } },
  },
  "stopwords-get": {
    summary: "Get a stopword set",
    params: [settingName],
    responses: {
      200: { description: "The set", schema: { type: "object", required: ["stopwords"], properties: { stopwords: ref("StopwordSet") } } },
      404: { description: "No such set" },
    },
  },
  "stopwords-delete": {
    summary: "Delete a stopword set",
    params: [settingName],
    responses: { 200: { description: "Deleted", schema: gone("id") }, 404: { description: "No such set" } },
  },
};

export function registerSettingsRoutes(
  server: HttpServer,
  auth: KeyAuth,
  settings: SearchSettings,
  collectionNeed: (action: string) => Need,
): void {
  const named =
    (action: string): Need =>
    (req) =>
      NAME.test(req.params[0] ?? "") ? { action, collections: [] } : { status: 400, message: `invalid name '${req.params[0]}'` };
  /** a route whose OpenAPI operation is DOCS[name] */
  const route = (declared: Omit<KeyedRoute, "doc">, handler: (g: Guarded) => void | Promise<void>): void =>
    keyedRoute(server, auth, { ...declared, doc: DOCS[declared.name] }, handler);
  const inCollection =
    (action: string): Need =>
    (req) => {
      if (req.params[1] !== undefined && !NAME.test(req.params[1])) return { status: 400, message: `invalid id '${req.params[1]}'` };
      return collectionNeed(action)(req);
    };

  route(
    {
      method: "put",
      path: "/collections/:name/synonyms/:id",
      name: "synonyms-upsert",
      action: "synonyms:upsert",
      scope: inCollection,
      options: JSON_BODY,
    },
    async (g) => {
      const body = await validBody(g, validateSynonym);
      if (!body) return;
      const rule: SynonymRule = { id: g.req.params[1], synonyms: body.synonyms, ...(body.root !== undefined ? { root: body.root } : {}) };
      g.reply.json(200, JSON.stringify(await settings.put("synonym", rule.id, rule)));
    },
  );
  route({ method: "get", path: "/collections/:name/synonyms", name: "synonyms-list", action: "synonyms:get", scope: inCollection }, (g) => {
    g.reply.json(200, JSON.stringify({ synonyms: settings.list<SynonymRule>("synonym") }));
  });
  route(
    { method: "get", path: "/collections/:name/synonyms/:id", name: "synonyms-get", action: "synonyms:get", scope: inCollection },
    (g) => {
      const rule = settings.get<SynonymRule>("synonym", g.req.params[1]);
      if (rule) g.reply.json(200, JSON.stringify(rule));
      else g.reply.error(404, "Could not find that `id`.");
    },
  );
  route(
    { method: "del", path: "/collections/:name/synonyms/:id", name: "synonyms-delete", action: "synonyms:delete", scope: inCollection },
    async (g) => {
      if (await settings.delete("synonym", g.req.params[1])) g.reply.json(200, JSON.stringify({ id: g.req.params[1] }));
      else g.reply.error(404, "Could not find that `id`.");
    },
  );

  route(
    { method: "put", path: "/presets/:name", name: "presets-upsert", action: "presets:upsert", scope: named, options: JSON_BODY },
    async (g) => {
      const body = await validBody(g, validatePreset);
      if (!body) return;
      g.reply.json(
        200,
        JSON.stringify(await settings.put<Preset>("preset", g.req.params[0], { name: g.req.params[0], value: body.value })),
      );
    },
  );
  route({ method: "get", path: "/presets", name: "presets-list", action: "presets:list" }, (g) => {
    g.reply.json(200, JSON.stringify({ presets: settings.list<Preset>("preset") }));
  });
  route({ method: "get", path: "/presets/:name", name: "presets-get", action: "presets:get", scope: named }, (g) => {
    const preset = settings.get<Preset>("preset", g.req.params[0]);
    if (preset) g.reply.json(200, JSON.stringify(preset));
    else g.reply.error(404, "Not found.");
  });
  route({ method: "del", path: "/presets/:name", name: "presets-delete", action: "presets:delete", scope: named }, async (g) => {
    if (await settings.delete("preset", g.req.params[0])) g.reply.json(200, JSON.stringify({ name: g.req.params[0] }));
    else g.reply.error(404, "Not found.");
  });

  route(
    { method: "put", path: "/stopwords/:name", name: "stopwords-upsert", action: "stopwords:upsert", scope: named, options: JSON_BODY },
    async (g) => {
      const body = await validBody(g, validateStopwords);
      if (!body) return;
      const set: StopwordSet = {
        id: g.req.params[0],
        stopwords: body.stopwords,
        ...(body.locale !== undefined ? { locale: body.locale } : {}),
      };
      g.reply.json(200, JSON.stringify(await settings.put("stopwords", set.id, set)));
    },
  );
  route({ method: "get", path: "/stopwords", name: "stopwords-list", action: "stopwords:list" }, (g) => {
    g.reply.json(200, JSON.stringify({ stopwords: settings.list<StopwordSet>("stopwords") }));
  });
  route({ method: "get", path: "/stopwords/:name", name: "stopwords-get", action: "stopwords:get", scope: named }, (g) => {
    const set = settings.get<StopwordSet>("stopwords", g.req.params[0]);
    if (set) g.reply.json(200, JSON.stringify({ stopwords: set }));
    else g.reply.error(404, `Stopword \`${g.req.params[0]}\` not found.`);
  });
  route({ method: "del", path: "/stopwords/:name", name: "stopwords-delete", action: "stopwords:delete", scope: named }, async (g) => {
    if (await settings.delete("stopwords", g.req.params[0])) g.reply.json(200, JSON.stringify({ id: g.req.params[0] }));
    else g.reply.error(404, `Stopword \`${g.req.params[0]}\` not found.`);
  });
}
