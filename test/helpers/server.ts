// Starts the real Leidex server (dist/src/main.js) as a child process on 127.0.0.1 with an
// ephemeral port, waits for its "listening on" line, and kills it when the owning test ends,
// whether or not the test passed. Also a small fetch helper and a raw HTTP/1.1 helper.

import { randomBytes } from "node:crypto";
import { createServer as createNetServer } from "node:net";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { request as httpRequest } from "node:http";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import pg from "pg";

export const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
export const MAIN = join(ROOT, "dist/src/main.js");
export const SAMPLE_CSV = join(ROOT, "data/sample/real-sample.csv");

/** The subset of a tap Test a helper needs (teardown hook). */
export interface Teardownable {
  teardown(fn: () => unknown): void;
}

export interface StartOptions {
  /** --source; omitted = the bundled sample (`sample`); null = no flag, the GLEIF API */
  source?: string | null;
  /** --shards; default 2; "auto" = no flag, the server sizes its slices to the data */
  shards?: number | "auto";
  /** --workers; omitted = no flag, a worker per core */
  workers?: number;
  rateLimit?: number;
  rateWindow?: number;
  /** extra raw flags */
  args?: string[];
  /** --data-dir; default a fresh temp dir */
  dataDir?: string;
  /** ms to wait for "listening on" */
  timeoutMs?: number;
  /** extra environment for the server (read at spawn) */
  env?: NodeJS.ProcessEnv;
  /** another installation, Node or user to run it with */
  launch?: Launch;
}

/** How the server is run: by default this checkout's dist/src/main.js on this Node, from the checkout. */
export interface Launch {
  /** the entry point (default MAIN) */
  main?: string;
  /** the node binary (default this test's) */
  node?: string;
  /** a command the node runs under, e.g. setpriv to another user */
  prefix?: string[];
  /** the working directory (default ROOT) */
  cwd?: string;
}

export interface RunningServer {
  base: string;
  port: number;
  child: ChildProcess;
  dataDir: string;
  stdout(): string;
  stderr(): string;
  /** resolves with the exit code (or signal name) */
  exited: Promise<number | string>;
  get(path: string, init?: RequestInit): Promise<Got>;
  json<T = any>(path: string, init?: RequestInit): Promise<T>;
  /** SIGTERM, wait for exit (SIGKILL after a grace period) */
  stop(): Promise<number | string>;
  /** SIGKILL, and wait until the process is gone */
  kill9(): Promise<number | string>;
}

export interface Got {
  status: number;
  headers: Headers;
  text: string;
  /** parsed body, or undefined when the body is not JSON */
  body: any;
}

/**
 * The server runs without the test runner's own hooks in NODE_OPTIONS: tap's process tracking
 * loads into every thread of a server and about doubles the CPU of its start, for records no
 * test reads. It also puts itself back into any environment handed to spawn, so `env` sets
 * NODE_OPTIONS last, just before node. What a test adds there itself (--inspect) stays.
 */
function withoutRunnerHooks(nodeOptions: string | undefined): string[] {
  const kept = (nodeOptions ?? "").split(/\s+/).filter((o) => o !== "" && !o.includes("/@tapjs/"));
  return kept.length > 0 ? ["env", `NODE_OPTIONS=${kept.join(" ")}`] : ["env", "-u", "NODE_OPTIONS"];
}

export function spawnLeidex(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  launch: Launch = {},
): {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | string>;
} {
  const environment = { ...process.env, ...env };
  const [command, ...rest] = [
    ...(launch.prefix ?? []),
    ...withoutRunnerHooks(environment.NODE_OPTIONS),
    launch.node ?? process.execPath,
    launch.main ?? MAIN,
    ...args,
  ];
  const child = spawn(command, rest, {
    cwd: launch.cwd ?? ROOT,
    env: environment,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => {
    out += c;
  });
  child.stderr!.setEncoding("utf8").on("data", (c: string) => {
    err += c;
  });
  const exited = new Promise<number | string>((res) => {
    child.on("exit", (code, signal) => res(code ?? signal ?? -1));
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Runs the binary to completion (for --help, bad flags, failing loads). */
export async function runLeidex(
  args: string[],
  timeoutMs = 60_000,
  launch: Launch = {},
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const p = spawnLeidex(args, env, launch);
  const timer = setTimeout(() => p.child.kill("SIGKILL"), timeoutMs);
  const code = await p.exited;
  clearTimeout(timer);
  // let the pipes drain
  await new Promise((r) => setImmediate(r));
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

/**
 * LEIDEX_TEST_POSTGRES=<a cluster's postgres database URL> runs the tests against the PostgreSQL
 * store (test/keys-on-postgres.test.ts): each data dir gets a database of its own there, the
 * same one again when a test restarts a server on it.
 */
const databases = new Map<string, string>();
/** The database of a data dir's servers when the tests run on PostgreSQL; undefined on state.db. */
export const sharedDatabaseOf = (dataDir: string): string | undefined => databases.get(dataDir);
/** A skip reason for a test that reads or writes state.db itself, when the tests run on PostgreSQL. */
export const ON_POSTGRES: string | false = process.env.LEIDEX_TEST_POSTGRES ? "it reads or writes state.db itself" : false;
async function databaseOf(cluster: string, dataDir: string): Promise<string> {
  const known = databases.get(dataDir);
  if (known) return known;
  const name = `leidex_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: cluster });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(cluster);
  url.pathname = `/${name}`;
  databases.set(dataDir, url.toString());
  return url.toString();
}

export function tempDir(t: Teardownable, prefix = "leidex-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export async function startServer(t: Teardownable, opts: StartOptions = {}): Promise<RunningServer> {
  const dataDir = opts.dataDir ?? tempDir(t, "leidex-data-");
  const args = [
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--data-dir",
    dataDir,
    "--rate-limit",
    String(opts.rateLimit ?? 0),
    "--rate-window",
    String(opts.rateWindow ?? 60),
  ];
  if (opts.shards !== "auto") args.push("--shards", String(opts.shards ?? 2));
  if (opts.workers !== undefined) args.push("--workers", String(opts.workers));
  const shared = process.env.LEIDEX_TEST_POSTGRES;
  if (shared && !(opts.args ?? []).includes("--database")) args.push("--database", await databaseOf(shared, dataDir));
  if (opts.source !== null) args.push("--source", opts.source ?? "sample");
  if (opts.args) args.push(...opts.args);
  // a LEIDEX_API_KEY inherited from the environment running the tests must not leak in
  const p = spawnLeidex(args, { LEIDEX_API_KEY: undefined, LEIDEX_SHARDS: undefined, ...opts.env }, opts.launch);
  let killed = false;
  const stop = async (): Promise<number | string> => {
    if (p.child.exitCode === null && p.child.signalCode === null && !killed) {
      killed = true;
      p.child.kill("SIGTERM");
      const timer = setTimeout(() => p.child.kill("SIGKILL"), 15_000);
      const code = await p.exited;
      clearTimeout(timer);
      return code;
    }
    return p.exited;
  };
  t.teardown(stop);
  const kill9 = async (): Promise<number | string> => {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
    return p.exited;
  };

  const port = await new Promise<number>((res, rej) => {
    const timer = setTimeout(() => {
      rej(new Error(`server did not start within ${opts.timeoutMs ?? 120_000} ms\nstdout:\n${p.stdout()}\nstderr:\n${p.stderr()}`));
    }, opts.timeoutMs ?? 120_000);
    const check = (): void => {
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(p.stdout());
      if (m) {
        clearTimeout(timer);
        res(Number(m[1]));
      }
    };
    p.child.stdout!.on("data", check);
    p.exited.then((code) => {
      clearTimeout(timer);
      rej(new Error(`server exited (${code}) before listening\nstdout:\n${p.stdout()}\nstderr:\n${p.stderr()}`));
    });
    check();
  });

  const base = `http://127.0.0.1:${port}`;
  const get = (path: string, init?: RequestInit): Promise<Got> => fetchGot(base + path, init);
  return {
    base,
    port,
    child: p.child,
    dataDir,
    stdout: p.stdout,
    stderr: p.stderr,
    exited: p.exited,
    stop,
    kill9,
    get,
    json: async (path: string, init?: RequestInit) => {
      const r = await get(path, init);
      if (r.status !== 200) throw new Error(`GET ${path} -> ${r.status}: ${r.text}`);
      return r.body;
    },
  };
}

export async function fetchGot(url: string, init?: RequestInit): Promise<Got> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** body bytes as received (not decompressed) */
  raw: Buffer;
  /** body, gunzipped when Content-Encoding says gzip */
  text: string;
}

/**
 * A request through node:http, which sends the path exactly as given (no URL normalisation,
 * no automatic decompression): for ugly paths and for checking gzip on the wire.
 */
export function rawRequest(
  port: number,
  path: string,
  opts: { method?: string; headers?: Record<string, string> } = {},
): Promise<RawResponse> {
  return new Promise((res, rej) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, method: opts.method ?? "GET", headers: opts.headers ?? {} }, (r) => {
      const chunks: Buffer[] = [];
      r.on("data", (c: Buffer) => chunks.push(c));
      r.on("end", () => {
        const raw = Buffer.concat(chunks);
        const body = r.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw;
        res({ status: r.statusCode ?? 0, headers: r.headers, raw, text: body.toString("utf8") });
      });
      r.on("error", rej);
    });
    req.on("error", rej);
    req.end();
  });
}

export type Params = Record<string, string | number | (string | number)[] | undefined>;

export const qs = (params: Params): string => {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const x of v) u.append(k, String(x));
    else u.append(k, String(v));
  }
  const s = u.toString();
  return s ? `?${s}` : "";
};

/** Polls `probe` every `everyMs` until it gives a value (not null, undefined or false), which it returns; an error it throws counts as not yet. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  timeoutMs = 45_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = null;
  for (;;) {
    try {
      const v = await probe();
      if (v !== null && v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ""}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Waits until the server's stdout after `from` matches `re`; the match (the timeout only guards a hang). */
export async function waitLog(srv: RunningServer, from: number, re: RegExp, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = re.exec(srv.stdout().slice(from));
    if (m) return m[0];
    if (Date.now() > deadline)
      throw new Error(`no log ${re} within ${timeoutMs} ms; since mark:\n${srv.stdout().slice(from).slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Maps with at most `n` calls in flight; results in input order. */
export async function pMap<T, R>(items: readonly T[], n: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  return out;
}

/** A TCP port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createNetServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
    s.on("error", rej);
  });
}

/** A sample's value in a Prometheus exposition: the first line of `name` whose labels include `labels`. */
export function metric(text: string, name: string, labels: Record<string, string> = {}): number | null {
  for (const line of text.split("\n")) {
    if (line.startsWith("#") || !line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{([^}]*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[3] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[4]);
  }
  return null;
}
