// A real HTTPS webhook receiver for tests, on 127.0.0.2 with the test-only certificate of
// test/fixtures/webhooks. Each path has its own behaviour (status, headers, delay); every request
// is recorded with its raw body, and the receiver measures how many requests per path were in
// flight at once. verifyMailSignature() is written from SPEC.md alone (Events > Signature).

import { createHmac, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { ROOT, type Teardownable } from "./server.js";

export const RECEIVER_HOST = "127.0.0.2";
export const CA_FILE = join(ROOT, "test/fixtures/webhooks/receiver-cert.pem");
const KEY_FILE = join(ROOT, "test/fixtures/webhooks/receiver-key.pem");

export interface Hit {
  path: string;
  method: string;
  headers: Record<string, string | string[] | undefined>;
  raw: Buffer;
  at: number;
}

export interface Behaviour {
  status: number;
  headers?: Record<string, string>;
  delayMs?: number;
  body?: string | Buffer;
}

export interface Receiver {
  base: string;
  port: number;
  hits(path?: string): Hit[];
  /** the most requests in flight at once on this path */
  maxInFlight(path: string): number;
  /** n = 1 for the first request on the path */
  behave(path: string, fn: (n: number, hit: Hit) => Behaviour): void;
  waitFor(pred: () => boolean, timeoutMs?: number, what?: string): Promise<void>;
}

/** `host`: where to listen (default 127.0.0.2; the certificate also names 127.0.0.1 and localhost). */
export async function startReceiver(t: Teardownable, host = RECEIVER_HOST): Promise<Receiver> {
  const hits: Hit[] = [];
  const inFlight = new Map<string, number>();
  const maxIn = new Map<string, number>();
  const counts = new Map<string, number>();
  const behaviours = new Map<string, (n: number, hit: Hit) => Behaviour>();
  const delayed = new Set<NodeJS.Timeout>();
  const server: Server = createServer({ key: readFileSync(KEY_FILE), cert: readFileSync(CA_FILE) }, (req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    const now = (inFlight.get(path) ?? 0) + 1;
    inFlight.set(path, now);
    maxIn.set(path, Math.max(maxIn.get(path) ?? 0, now));
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const hit: Hit = { path, method: req.method ?? "", headers: req.headers, raw: Buffer.concat(chunks), at: Date.now() };
      hits.push(hit);
      const n = (counts.get(path) ?? 0) + 1;
      counts.set(path, n);
      const b = (behaviours.get(path) ?? (() => ({ status: 200 })))(n, hit);
      const finish = (): void => {
        inFlight.set(path, (inFlight.get(path) ?? 1) - 1);
        res.writeHead(b.status, { "content-type": "text/plain", ...(b.headers ?? {}) });
        res.end(b.body ?? `ok ${n}`);
      };
      if (b.delayMs) {
        const timer = setTimeout(() => {
          delayed.delete(timer);
          finish();
        }, b.delayMs);
        delayed.add(timer);
      } else finish();
    });
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  t.teardown(
    () =>
      new Promise<void>((r) => {
        // a delayed answer never comes: its timer would hold the test's process open until it fires
        for (const timer of delayed) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  const port = (server.address() as AddressInfo).port;
  return {
    base: `https://${host}:${port}`,
    port,
    hits: (path) => (path ? hits.filter((h) => h.path === path) : [...hits]),
    maxInFlight: (path) => maxIn.get(path) ?? 0,
    behave: (path, fn) => {
      behaviours.set(path, fn);
    },
    waitFor: async (pred, timeoutMs = 10_000, what = "condition") => {
      const end = Date.now() + timeoutMs;
      while (!pred()) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

/** Checks a dispatch as SPEC.md says a receiver must: HMAC over `timestamp.nonce.rawBody`, hex, constant time, 300 s tolerance. */
export function verifyMailSignature(secret: string, hit: Hit, nowSeconds = Math.floor(Date.now() / 1000), toleranceSeconds = 300): boolean {
  const ts = String(hit.headers["x-mail-timestamp"] ?? "");
  const nonce = String(hit.headers["x-mail-nonce"] ?? "");
  const sig = String(hit.headers["x-mail-signature"] ?? "");
  if (!/^\d+$/.test(ts) || Math.abs(nowSeconds - Number(ts)) > toleranceSeconds || !/^[0-9a-f]{64}$/.test(sig)) return false;
  const expected = createHmac("sha256", Buffer.from(secret, "utf8"))
    .update(Buffer.concat([Buffer.from(`${ts}.${nonce}.`, "utf8"), hit.raw]))
    .digest();
  return timingSafeEqual(expected, Buffer.from(sig, "hex"));
}
