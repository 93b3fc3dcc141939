// Helpers for the keyed engine API tests: raw requests carrying a key in any of the accepted
// places (optionally from another local address, to be a different client IP), Typesense scoped
// search keys computed independently of the server's code, and the calls the test/engine-*.test.ts
// files share (keyedApi: the bootstrap key, expected 401s from other addresses, creating keys).
//
// Requests that are meant to fail with 401 go out from 127.0.0.3 (or the guard's own addresses),
// so that the 30-a-minute guessing guard never trips on 127.0.0.1 by accident.

import { createHmac } from "node:crypto";
import { request as httpRequest, type IncomingMessage } from "node:http";
import type { Errors } from "typesense";
import { qs, type Params } from "./server.js";

/** The source address of requests expected to be refused with 401 (its own guessing-guard budget). */
export const BAD_IP = "127.0.0.3";
/** The same for refused scoped keys. */
export const BAD_IP_SCOPED = "127.0.0.4";
/** Typesense's default expires_at: the far future. */
export const FAR_FUTURE = 64723363199;
/** An LEI of the bundled sample. */
export const KNOWN_LEI = "549300E0WPRCJMXMUM09";

/** Where a request carries its key. */
export type Via = "x-search-api-key" | "x-typesense-api-key" | "query:x-search-api-key" | "query:x-typesense-api-key";

export interface KeyedInit {
  key?: string | null;
  via?: Via;
  method?: string;
  /** a JSON value (stringified) or raw text/bytes */
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /** source address (127.0.0.x): a different client IP */
  localAddress?: string;
}

export interface KeyedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** parsed JSON, or undefined */
  body: any;
}

/** A whole response: status, headers, text, and the body parsed when it is JSON. */
export function readResponse(res: IncomingMessage): Promise<KeyedResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on("data", (c: Buffer) => chunks.push(c));
    res.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
    });
    res.on("error", reject);
  });
}

export function keyedRequest(port: number, path: string, init: KeyedInit = {}): Promise<KeyedResponse> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  let fullPath = path;
  const via = init.via ?? "x-search-api-key";
  if (init.key !== undefined && init.key !== null) {
    if (via.startsWith("query:")) fullPath += `${path.includes("?") ? "&" : "?"}${via.slice(6)}=${encodeURIComponent(init.key)}`;
    else headers[via] = init.key;
  }
  let payload: Buffer | undefined;
  if (init.rawBody !== undefined) payload = Buffer.isBuffer(init.rawBody) ? init.rawBody : Buffer.from(init.rawBody);
  else if (init.body !== undefined) payload = Buffer.from(JSON.stringify(init.body));
  if (payload) {
    headers["content-type"] ??= "application/json";
    headers["content-length"] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        path: fullPath,
        method: init.method ?? "GET",
        headers,
        ...(init.localAddress ? { localAddress: init.localAddress, agent: false } : {}),
      },
      (res) => {
        readResponse(res).then(resolve, reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** base64(HMAC-SHA256(key = parent value, message = paramsJson)), Typesense's scoped-key digest. */
export function scopedDigest(parentValue: string, paramsJson: string): string {
  return createHmac("sha256", parentValue).update(paramsJson).digest("base64");
}

/** A Typesense scoped search key: base64(digest + parent[0:4] + paramsJson), over these exact bytes. */
export function scopedToken(parentValue: string, paramsJson: string): string {
  return Buffer.from(scopedDigest(parentValue, paramsJson) + parentValue.slice(0, 4) + paramsJson).toString("base64");
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** POST /keys's answer: the key with its value (shown once). */
export interface CreatedKey {
  id: number;
  value: string;
  value_prefix: string;
  key_prefix: string;
  description: string;
  actions: string[];
  collections: string[];
  expires_at: number;
  autodelete: boolean;
}

export const searchPath = (collection: string, params: Params): string => `/collections/${collection}/documents/search${qs(params)}`;
/** The hits' LEIs of a search response (throws when it has no hits). */
export const leis = (r: KeyedResponse): string[] => (r.body.hits as { document: { lei: string } }[]).map((h) => h.document.lei);
/** The hits' LEIs of a search body ([] when it has none). */
export const leisOf = (body: { hits?: { document: { lei: string } }[] }): string[] => (body.hits ?? []).map((h) => h.document.lei);

/**
 * The calls of the keyed engine API tests against one server: `port()` is read at each call, so
 * a test that restarts the server is followed. `bootKey` is the server's --api-key.
 */
export function keyedApi(port: () => number, bootKey: string) {
  const call = (path: string, init: KeyedInit = {}): Promise<KeyedResponse> => keyedRequest(port(), path, init);
  const boot = (path: string, init: KeyedInit = {}): Promise<KeyedResponse> => call(path, { key: bootKey, ...init });
  /** a request expected to be refused with 401: from another address, so 127.0.0.1 keeps its guard budget */
  const bad = (path: string, init: KeyedInit = {}): Promise<KeyedResponse> => call(path, { localAddress: BAD_IP, ...init });
  const badScoped = (path: string, init: KeyedInit = {}): Promise<KeyedResponse> => call(path, { localAddress: BAD_IP_SCOPED, ...init });
  /** POST /keys as `creator` (the bootstrap key by default); throws unless 201. */
  async function mkKey(spec: Record<string, unknown>, creator = bootKey): Promise<CreatedKey> {
    const r = await call("/keys", { method: "POST", key: creator, body: { collections: [], ...spec } });
    if (r.status !== 201) throw new Error(`POST /keys ${JSON.stringify(spec)} -> ${r.status} ${r.text}`);
    return r.body as CreatedKey;
  }
  /** A key with these actions on these collections (all by default), made with the bootstrap key. */
  const mkKeyFor = (actions: string[], collections: string[] = []): Promise<CreatedKey> => mkKey({ actions, collections });
  const multi = (body: unknown, query: Params = {}, init: KeyedInit = {}): Promise<KeyedResponse> =>
    boot(`/multi_search${qs(query)}`, { method: "POST", body, ...init });
  /** the server as a node of the official typesense client */
  const node = () => ({ host: "127.0.0.1", port: port(), protocol: "http" });
  return { call, boot, bad, badScoped, mkKey, mkKeyFor, multi, node };
}

/** What a call of the official typesense client threw: the error's class name, HTTP status and message. */
export async function typesenseError(p: Promise<unknown>): Promise<{ name: string; status?: number; message: string; error: unknown }> {
  try {
    await p;
  } catch (error) {
    const e = error as Errors.TypesenseError;
    return { name: e.constructor.name, status: e.httpStatus, message: e.message, error };
  }
  return { name: "none", message: "the call succeeded", error: null };
}
