// Helpers for the keyed engine API tests: raw requests carrying a key in any of the accepted
// places (optionally from another local address, to be a different client IP), and Typesense
// scoped search keys computed independently of the server's code.

import { createHmac } from "node:crypto";
import { request as httpRequest, type IncomingMessage } from "node:http";

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
      try { body = JSON.parse(text); } catch { body = undefined; }
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
      { host: "127.0.0.1", port, path: fullPath, method: init.method ?? "GET", headers, ...(init.localAddress ? { localAddress: init.localAddress, agent: false } : {}) },
      (res) => { readResponse(res).then(resolve, reject); },
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

