// The dispatch bench's webhook receiver: a node:https server on its own worker thread (so that the
// bench's event sender never delays an arrival timestamp), using the test-only certificate of
// test/fixtures/webhooks. Every request is checked the way SPEC.md tells a receiver to: lower-case
// hex HMAC-SHA256 keyed by the secret's UTF-8 bytes over `timestamp + "." + nonce + "." + rawBody`,
// compared in constant time, then the body is parsed and its id must match X-Mail-Event-Id. It
// counts unique (path, event id) pairs, duplicates, bad signatures and the most requests in flight
// per path, and for ids of the form `lat-<seq>-<sentAtMicros>` the intake-to-arrival latency.
// It can imitate slower receivers: answer each request after `delayMs`, close the connection after
// each answer (`closeEach`: every request a new TCP and TLS connection), and listen on `origins`
// ports (one origin each, each with its own connection pool at the sender). It reports its own
// thread's CPU time (/proc/thread-self/stat).

import { createHmac, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { parentPort, workerData } from "node:worker_threads";

export interface ReceiverData {
  key: string;
  cert: string;
  host: string;
  /** ms before each answer (0: at once) */
  delayMs?: number;
  /** close the connection after each answer */
  closeEach?: boolean;
  /** ports to listen on, one origin each (default 1) */
  origins?: number;
}

export type ToReceiver =
  { type: "secrets"; secrets: Record<string, string> } | { type: "reset" } | { type: "progress" } | { type: "report" };

export interface ReceiverProgress {
  type: "progress";
  unique: number;
  requests: number;
}

export interface ReceiverReport {
  type: "report";
  requests: number;
  unique: number;
  duplicates: number;
  badSignatures: number;
  badBodies: number;
  bodyBytes: number;
  /** epoch ms (performance.timeOrigin + now) of the first arrival and of the last response sent */
  firstArrivalMs: number;
  lastResponseMs: number;
  uniqueByPath: Record<string, number>;
  maxInFlightByPath: Record<string, number>;
  /** ms from intake send to arrival, one per unique `lat-` delivery */
  latenciesMs: number[];
  /** this receiver thread's CPU seconds (user + system) since it started */
  cpuSeconds: number;
  /** TLS connections accepted since the last reset */
  connections: number;
}

export type FromReceiver = { type: "listening"; ports: number[] } | ReceiverProgress | ReceiverReport;

const nowMs = (): number => performance.timeOrigin + performance.now();
const port = parentPort!;
const { key, cert, host, delayMs = 0, closeEach = false, origins = 1 } = workerData as ReceiverData;

/** this thread's CPU seconds, from /proc/thread-self/stat (utime + stime, clock ticks of 1/100 s) */
function threadCpuSeconds(): number {
  try {
    const stat = readFileSync("/proc/thread-self/stat", "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

let secrets = new Map<string, Buffer>();
let seen = new Set<string>();
let requests = 0,
  duplicates = 0,
  badSignatures = 0,
  badBodies = 0,
  bodyBytes = 0;
let firstArrivalMs = 0,
  lastResponseMs = 0;
let uniqueByPath = new Map<string, number>();
let inFlight = new Map<string, number>();
let maxInFlight = new Map<string, number>();
let latencies: number[] = [];
let connections = 0;

function verify(secret: Buffer, ts: string, nonce: string, sig: string, raw: Buffer): boolean {
  if (!/^\d+$/.test(ts) || !/^[0-9a-f]{64}$/.test(sig)) return false;
  if (Math.abs(Math.floor(Date.now() / 1000) - Number(ts)) > 300) return false;
  const expected = createHmac("sha256", secret).update(`${ts}.${nonce}.`).update(raw).digest();
  return timingSafeEqual(expected, Buffer.from(sig, "hex"));
}

const handle = (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse): void => {
  const path = (req.url ?? "/").split("?")[0];
  const arrived = nowMs();
  if (firstArrivalMs === 0) firstArrivalMs = arrived;
  const n = (inFlight.get(path) ?? 0) + 1;
  inFlight.set(path, n);
  if (n > (maxInFlight.get(path) ?? 0)) maxInFlight.set(path, n);
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    requests++;
    const raw = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    bodyBytes += raw.length;
    const secret = secrets.get(path);
    const h = req.headers;
    const ok =
      secret !== undefined &&
      verify(secret, String(h["x-mail-timestamp"] ?? ""), String(h["x-mail-nonce"] ?? ""), String(h["x-mail-signature"] ?? ""), raw);
    if (!ok) badSignatures++;
    else {
      let id: unknown;
      try {
        id = (JSON.parse(raw.toString("utf8")) as { id?: unknown }).id;
      } catch {
        id = undefined;
      }
      if (typeof id !== "string" || id !== h["x-mail-event-id"]) badBodies++;
      else {
        const k = `${path} ${id}`;
        if (seen.has(k)) duplicates++;
        else {
          seen.add(k);
          uniqueByPath.set(path, (uniqueByPath.get(path) ?? 0) + 1);
          if (id.startsWith("lat-")) latencies.push(arrived - Number(id.slice(id.lastIndexOf("-") + 1)) / 1000);
        }
      }
    }
    const answer = (): void => {
      inFlight.set(path, (inFlight.get(path) ?? 1) - 1);
      res.writeHead(ok ? 200 : 401, {
        "content-type": "text/plain",
        "content-length": "2",
        ...(closeEach ? { connection: "close" } : {}),
      });
      res.end("ok");
      lastResponseMs = nowMs();
    };
    if (delayMs > 0) setTimeout(answer, delayMs);
    else answer();
  });
};

const servers: Server[] = Array.from({ length: origins }, () => {
  const s = createServer({ key, cert, keepAlive: !closeEach, keepAliveTimeout: 30_000 }, handle);
  s.on("secureConnection", () => connections++);
  return s;
});
void Promise.all(servers.map((s) => new Promise<number>((res) => s.listen(0, host, () => res((s.address() as AddressInfo).port))))).then(
  (ports) => port.postMessage({ type: "listening", ports } satisfies FromReceiver),
);

port.on("message", (m: ToReceiver) => {
  if (m.type === "secrets") secrets = new Map(Object.entries(m.secrets).map(([p, s]) => [p, Buffer.from(s, "utf8")]));
  else if (m.type === "reset") {
    seen = new Set();
    requests = duplicates = badSignatures = badBodies = bodyBytes = 0;
    firstArrivalMs = lastResponseMs = 0;
    uniqueByPath = new Map();
    inFlight = new Map();
    maxInFlight = new Map();
    latencies = [];
    connections = 0;
  } else if (m.type === "progress") port.postMessage({ type: "progress", unique: seen.size, requests } satisfies FromReceiver);
  else {
    port.postMessage({
      type: "report",
      requests,
      unique: seen.size,
      duplicates,
      badSignatures,
      badBodies,
      bodyBytes,
      firstArrivalMs,
      lastResponseMs,
      uniqueByPath: Object.fromEntries(uniqueByPath),
      maxInFlightByPath: Object.fromEntries(maxInFlight),
      latenciesMs: latencies,
      cpuSeconds: threadCpuSeconds(),
      connections,
    } satisfies FromReceiver);
  }
});
