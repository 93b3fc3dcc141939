// Helpers for the keyed engine API tests: raw requests carrying a key in any of the accepted
// places (optionally from another local address, to be a different client IP), Typesense scoped
// search keys computed independently of the server's code, and a server start that can pass
// environment variables (startServer cannot) and be killed with SIGKILL.

import { createHmac } from "node:crypto";
import { request as httpRequest } from "node:http";
import { spawnLeidex, type Teardownable } from "./server.js";

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
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let body: any;
          try { body = JSON.parse(text); } catch { body = undefined; }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
        res.on("error", reject);
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

export interface Leidex {
  port: number;
  dataDir: string;
  stdout(): string;
  exited: Promise<number | string>;
  /** SIGKILL, and wait until the process is gone */
  kill9(): Promise<number | string>;
}

/**
 * Starts dist/src/main.js serving the bundled sample on 127.0.0.1 with an ephemeral port, with
 * extra environment variables; SIGKILLed at teardown if still running.
 */
export async function startLeidex(t: Teardownable, opts: { dataDir: string; args?: string[]; env?: NodeJS.ProcessEnv; shards?: number }): Promise<Leidex> {
  const args = ["--host", "127.0.0.1", "--port", "0", "--data-dir", opts.dataDir, "--shards", String(opts.shards ?? 1), "--rate-limit", "0", "--source", "sample", ...(opts.args ?? [])];
  // a LEIDEX_API_KEY inherited from the environment running the tests must not leak in
  const p = spawnLeidex(args, { LEIDEX_API_KEY: undefined, ...opts.env });
  const kill9 = async (): Promise<number | string> => {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
    return p.exited;
  };
  t.teardown(kill9);
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening on" within 60 s\n${p.stdout()}\n${p.stderr()}`)), 60_000);
    const check = (): void => {
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(p.stdout());
      if (m) { clearTimeout(timer); resolve(Number(m[1])); }
    };
    p.child.stdout!.on("data", check);
    void p.exited.then((code) => { clearTimeout(timer); reject(new Error(`server exited (${code}) before listening\n${p.stdout()}\n${p.stderr()}`)); });
    check();
  });
  return { port, dataDir: opts.dataDir, stdout: p.stdout, exited: p.exited, kill9 };
}
