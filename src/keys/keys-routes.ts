// /keys: create (the value shown only here), list and get (prefix only), delete. Ids are never
// reused. A key creates, lists, gets and deletes only keys within its own powers (model.ts's
// withinPowers); the bootstrap key has them all. A key beyond the caller's is answered as if it
// did not exist (404, absent from the list).
//
// A chosen `value` is a guess at other keys' values (a clash is 409), so every create that names
// its value spends one of the address's guesses, the budget bad keys spend (30 a minute): past
// it, 429 before the value is looked at. Charging clashes only would still tell a clash (429)
// from a free value (201) once the budget is spent. Generated values cost nothing.

import { ajv, describeSchemaError } from "../http/json-schema.js";
import type { HttpServer } from "../http/server.js";
import type { KeyAuth } from "./auth.js";
import { randomKey } from "../store/persisted-key.js";
import type { KeyStore } from "./key-store.js";
import { JSON_BODY, keyedRoute, jsonBody, type Guarded, type Need } from "./keyed-route.js";
import { collectionsRefusal, FAR_FUTURE, withinPowers, type ApiKey } from "./model.js";
import { ExpiryGuard } from "./expiry-guard.js";

const PREFIX_CHARS = 4;

export const keyCreateSchema = {
  type: "object",
  description: "A key to create. Actions and collections follow Typesense; an empty collections list means all.",
  required: ["actions", "collections"],
  additionalProperties: false,
  properties: {
    value: { type: "string", minLength: 8, maxLength: 512, description: "Your own key value; generated (32 characters) when omitted." },
    description: { type: "string", maxLength: 1000 },
    actions: { type: "array", minItems: 1, maxItems: 64, items: { type: "string", minLength: 1, maxLength: 128 } },
    collections: { type: "array", maxItems: 256, items: { type: "string", minLength: 1, maxLength: 256 } },
    expires_at: { type: "integer", minimum: 0, maximum: FAR_FUTURE, description: "Unix seconds; the key works through this second." },
    autodelete: { type: "boolean", description: "Delete the key within a minute of expiring; otherwise it stays listed and refused." },
    value_prefix: { type: "string", description: "Ignored (the official client may send it)." },
  },
} as const;

interface KeyCreate {
  value?: string;
  description?: string;
  actions: string[];
  collections: string[];
  expires_at?: number;
  autodelete?: boolean;
}

const validateCreate = ajv.compile<KeyCreate>(keyCreateSchema);

const keyFields = {
  id: { type: "integer", description: "Never reused" },
  value_prefix: { type: "string", description: "The value's first 4 characters" },
  key_prefix: { type: "string", description: "The same as value_prefix (Typesense names it so)" },
  description: { type: "string" },
  actions: { type: "array", items: { type: "string" }, example: ["documents:search"] },
  collections: { type: "array", items: { type: "string" }, description: "Names or full-match regexes; empty means all" },
  expires_at: { type: "integer", description: "Unix seconds" },
  autodelete: { type: "boolean" },
};

/** OpenAPI components of /keys. */
export const KEY_SCHEMAS = {
  ApiKey: { type: "object", required: Object.keys(keyFields), properties: keyFields, description: "A key as listed: never its value" },
  ApiKeyCreated: {
    type: "object",
    required: [...Object.keys(keyFields), "value"],
    properties: { ...keyFields, value: { type: "string", description: "The key itself; shown only in this answer" } },
  },
  ApiKeyCreate: keyCreateSchema,
};
const ref = (name: keyof typeof KEY_SCHEMAS): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });
const keyId = { name: "id", description: "The key's id", schema: { type: "integer", minimum: 0 }, example: 3 };

/** The listed form: never the value, only its prefix. */
export function publicKey(k: ApiKey): Record<string, unknown> {
  const prefix = k.value.slice(0, PREFIX_CHARS);
  return {
    id: k.id,
    value_prefix: prefix,
    key_prefix: prefix,
    description: k.description,
    actions: k.actions,
    collections: k.collections,
    expires_at: k.expiresAt,
    autodelete: k.autodelete,
  };
}

export function registerKeyRoutes(server: HttpServer, auth: KeyAuth, keys: KeyStore, nowSeconds: () => number): void {
  keyedRoute(
    server,
    auth,
    {
      method: "post",
      path: "/keys",
      name: "keys-create",
      action: "keys:create",
      options: JSON_BODY,
      doc: {
        summary: "Create an API key",
        description:
          "A key creates only keys within its own actions, collections and expiry. A chosen `value` spends one of the address's 30 guesses a minute.",
        body: { schema: ref("ApiKeyCreate"), example: { description: "search only", actions: ["documents:search"], collections: ["lei"] } },
        responses: {
          201: { description: "The key, with its value (shown only here)", schema: ref("ApiKeyCreated") },
          409: { description: "The value is taken" },
        },
      },
    },
    async (g) => {
      const parsed = await jsonBody(g);
      if (parsed === undefined) return;
      if (!validateCreate(parsed)) {
        g.reply.error(400, describeSchemaError("key", validateCreate.errors));
        return;
      }
      const body: KeyCreate = parsed;
      const badPattern = collectionsRefusal(body.collections);
      if (badPattern) {
        g.reply.error(400, `invalid key: ${badPattern}`);
        return;
      }
      const wanted = { actions: body.actions, collections: body.collections, expiresAt: body.expires_at ?? FAR_FUTURE };
      const beyond = g.caller.kind === "bootstrap" ? null : withinPowers(g.caller.key, wanted);
      if (beyond) {
        g.reply.error(403, `cannot create this key: ${beyond}`);
        return;
      }
      if (wanted.expiresAt <= nowSeconds()) {
        g.reply.error(400, "expires_at is in the past");
        return;
      }
      if (body.value !== undefined) {
        const guess = auth.chargeGuess(g.req.ip);
        if (guess && !guess.allowed) {
          g.reply.header("Retry-After", String(guess.retryAfterSeconds));
          g.reply.error(429, "too many keys with chosen values (or bad API keys) from this address; wait a minute");
          return;
        }
      }
      const value = body.value ?? randomKey("", 32);
      if (auth.isBootstrap(value)) {
        g.reply.error(409, "API key generation conflict.");
        return;
      }
      const created = await keys.create({ value, description: body.description ?? "", ...wanted, autodelete: body.autodelete ?? false });
      if (!created) {
        g.reply.error(409, "API key generation conflict.");
        return;
      }
      g.reply.json(201, JSON.stringify({ ...publicKey(created), value: created.value }));
    },
  );

  /** The stored key with this id, if the caller's powers cover it. */
  const visible = (g: Guarded, key: ApiKey | null): ApiKey | null =>
    key && (g.caller.kind === "bootstrap" || withinPowers(g.caller.key, key) === null) ? key : null;

  keyedRoute(
    server,
    auth,
    {
      method: "get",
      path: "/keys",
      name: "keys-list",
      action: "keys:list",
      doc: {
        summary: "List API keys",
        description: "Only keys within the caller's own powers, never their values.",
        responses: {
          200: {
            description: "The keys",
            schema: { type: "object", required: ["keys"], properties: { keys: { type: "array", items: ref("ApiKey") } } },
          },
        },
      },
    },
    (g) => {
      g.reply.json(
        200,
        JSON.stringify({
          keys: keys
            .list()
            .filter((k) => visible(g, k))
            .map(publicKey),
        }),
      );
    },
  );

  const byId =
    (action: string): Need =>
    (req) =>
      /^[0-9]{1,15}$/.test(req.params[0] ?? "")
        ? { action, collections: [] }
        : { status: 400, message: `key id must be a whole number, got '${req.params[0]}'` };

  keyedRoute(
    server,
    auth,
    {
      method: "get",
      path: "/keys/:id",
      name: "keys-get",
      action: "keys:get",
      scope: byId,
      doc: {
        summary: "Get an API key",
        params: [keyId],
        responses: {
          200: { description: "The key, without its value", schema: ref("ApiKey") },
          400: { description: "The id is not a whole number" },
          404: { description: "No such key, or beyond the caller's powers" },
        },
      },
    },
    (g) => {
      const key = visible(g, keys.get(Number(g.req.params[0])));
      if (!key) g.reply.error(404, "Not found.");
      else g.reply.json(200, JSON.stringify(publicKey(key)));
    },
  );

  keyedRoute(
    server,
    auth,
    {
      method: "del",
      path: "/keys/:id",
      name: "keys-delete",
      action: "keys:delete",
      scope: byId,
      doc: {
        summary: "Delete an API key",
        params: [keyId],
        responses: {
          200: { description: "Deleted", schema: { type: "object", required: ["id"], properties: { id: { type: "integer" } } } },
          400: { description: "The id is not a whole number" },
          404: { description: "No such key, or beyond the caller's powers" },
        },
      },
    },
    async (g) => {
      const id = Number(g.req.params[0]);
      if (!visible(g, keys.get(id)) || !(await keys.delete(id))) g.reply.error(404, "Not found.");
      else g.reply.json(200, JSON.stringify({ id }));
    },
  );
}

/** Deletes expired autodelete keys every few seconds, so each goes within a minute of expiring. */
export function startKeyHousekeeping(keys: KeyStore, nowSeconds: () => number, log: (line: string) => void): NodeJS.Timeout {
  const guard = new ExpiryGuard();
  const timer = setInterval(() => {
    keys
      .deleteExpired(nowSeconds(), (expired) => guard.confirm(expired))
      .then(
        (gone) => {
          if (gone.length > 0) log(`deleted expired API keys ${gone.join(", ")}`);
        },
        (err: Error) => log(`expired API keys could not be deleted now (${err.message}); trying again in 15 s`),
      );
  }, 15_000);
  timer.unref();
  return timer;
}
