// Typesense's synonym, preset and stopword endpoints over SearchSettings. Bodies are validated
// by the schemas below; a name is 1–128 characters of letters, digits, '_', '-' and '.'.

import type { ValidateFunction } from "ajv";
import { ajv, describeSchemaError } from "../http/json-schema.js";
import type { HttpServer } from "../http/server.js";
import type { KeyAuth } from "../keys/auth.js";
import { JSON_BODY, jsonBody, keyedRoute, noCollection, type Guarded, type Need } from "../keys/keyed-route.js";
import type { Preset, SearchSettings, StopwordSet, SynonymRule } from "./search-settings.js";

const NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const phrase = { type: "string", minLength: 1, maxLength: 200 } as const;

const synonymSchema = {
  type: "object", additionalProperties: false, required: ["synonyms"],
  description: "Multi-way when root is absent (every phrase stands for the others); one-way from root otherwise.",
  properties: { synonyms: { type: "array", minItems: 1, maxItems: 50, items: phrase }, root: phrase, id: { type: "string" }, locale: { type: "string" }, symbols_to_index: { type: "array" } },
} as const;
const presetSchema = {
  type: "object", additionalProperties: false, required: ["value"],
  description: "Search parameters applied with preset=<name>; the request's and a scoped key's own parameters win.",
  properties: { value: { type: "object", additionalProperties: { type: ["string", "number", "boolean"] } }, name: { type: "string" } },
} as const;
const stopwordsSchema = {
  type: "object", additionalProperties: false, required: ["stopwords"],
  description: "Words dropped from q with stopwords=<name>.",
  properties: { stopwords: { type: "array", minItems: 1, maxItems: 1000, items: phrase }, locale: { type: "string" }, id: { type: "string" }, name: { type: "string" } },
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

export function registerSettingsRoutes(server: HttpServer, auth: KeyAuth, settings: SearchSettings, collectionNeed: (action: string) => Need): void {
  const named = (action: string, at: number): Need => (req) =>
    NAME.test(req.params[at] ?? "") ? { action, collections: [] } : { status: 400, message: `invalid name '${req.params[at]}'` };
  const inCollection = (action: string): Need => (req) => {
    if (req.params[1] !== undefined && !NAME.test(req.params[1])) return { status: 400, message: `invalid id '${req.params[1]}'` };
    return collectionNeed(action)(req);
  };

  keyedRoute(server, auth, "put", "/collections/:name/synonyms/:id", "synonyms-upsert", inCollection("synonyms:upsert"), async (g) => {
    const body = await validBody(g, validateSynonym);
    if (!body) return;
    const rule: SynonymRule = { id: g.req.params[1], synonyms: body.synonyms, ...(body.root !== undefined ? { root: body.root } : {}) };
    g.reply.json(200, JSON.stringify(settings.put("synonym", rule.id, rule)));
  }, JSON_BODY);
  keyedRoute(server, auth, "get", "/collections/:name/synonyms", "synonyms-list", inCollection("synonyms:get"), (g) => {
    g.reply.json(200, JSON.stringify({ synonyms: settings.list<SynonymRule>("synonym") }));
  });
  keyedRoute(server, auth, "get", "/collections/:name/synonyms/:id", "synonyms-get", inCollection("synonyms:get"), (g) => {
    const rule = settings.get<SynonymRule>("synonym", g.req.params[1]);
    if (rule) g.reply.json(200, JSON.stringify(rule)); else g.reply.error(404, "Could not find that `id`.");
  });
  keyedRoute(server, auth, "del", "/collections/:name/synonyms/:id", "synonyms-delete", inCollection("synonyms:delete"), (g) => {
    if (settings.delete("synonym", g.req.params[1])) g.reply.json(200, JSON.stringify({ id: g.req.params[1] }));
    else g.reply.error(404, "Could not find that `id`.");
  });

  keyedRoute(server, auth, "put", "/presets/:name", "presets-upsert", named("presets:upsert", 0), async (g) => {
    const body = await validBody(g, validatePreset);
    if (!body) return;
    g.reply.json(200, JSON.stringify(settings.put<Preset>("preset", g.req.params[0], { name: g.req.params[0], value: body.value })));
  }, JSON_BODY);
  keyedRoute(server, auth, "get", "/presets", "presets-list", noCollection("presets:list"), (g) => {
    g.reply.json(200, JSON.stringify({ presets: settings.list<Preset>("preset") }));
  });
  keyedRoute(server, auth, "get", "/presets/:name", "presets-get", named("presets:get", 0), (g) => {
    const preset = settings.get<Preset>("preset", g.req.params[0]);
    if (preset) g.reply.json(200, JSON.stringify(preset)); else g.reply.error(404, "Not found.");
  });
  keyedRoute(server, auth, "del", "/presets/:name", "presets-delete", named("presets:delete", 0), (g) => {
    if (settings.delete("preset", g.req.params[0])) g.reply.json(200, JSON.stringify({ name: g.req.params[0] }));
    else g.reply.error(404, "Not found.");
  });

  keyedRoute(server, auth, "put", "/stopwords/:name", "stopwords-upsert", named("stopwords:upsert", 0), async (g) => {
    const body = await validBody(g, validateStopwords);
    if (!body) return;
    const set: StopwordSet = { id: g.req.params[0], stopwords: body.stopwords, ...(body.locale !== undefined ? { locale: body.locale } : {}) };
    g.reply.json(200, JSON.stringify(settings.put("stopwords", set.id, set)));
  }, JSON_BODY);
  keyedRoute(server, auth, "get", "/stopwords", "stopwords-list", noCollection("stopwords:list"), (g) => {
    g.reply.json(200, JSON.stringify({ stopwords: settings.list<StopwordSet>("stopwords") }));
  });
  keyedRoute(server, auth, "get", "/stopwords/:name", "stopwords-get", named("stopwords:get", 0), (g) => {
    const set = settings.get<StopwordSet>("stopwords", g.req.params[0]);
    if (set) g.reply.json(200, JSON.stringify({ stopwords: set })); else g.reply.error(404, `Stopword \`${g.req.params[0]}\` not found.`);
  });
  keyedRoute(server, auth, "del", "/stopwords/:name", "stopwords-delete", named("stopwords:delete", 0), (g) => {
    if (settings.delete("stopwords", g.req.params[0])) g.reply.json(200, JSON.stringify({ id: g.req.params[0] }));
    else g.reply.error(404, `Stopword \`${g.req.params[0]}\` not found.`);
  });
}
