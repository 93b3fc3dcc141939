// One call of area C's JSON API with an optional Bearer key, answered as status, parsed body, text
// and headers; and the setup the test/webhooks-*.test.ts files share (webhookBench): a server whose
// dispatchers may reach the test receiver, its operator key, two tenants, and calls that follow a
// restarted server.

import Database from "better-sqlite3";
import { join } from "node:path";
import pg from "pg";
import { CA_FILE, RECEIVER_HOST, type Hit, type Receiver } from "./webhook-receiver.js";
import { sharedDatabaseOf, startServer, tempDir, type RunningServer, type Teardownable } from "./server.js";

export interface Res {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

/** `raw`, when given, is sent as the JSON body as it is (malformed or oversized bodies) instead of `body`. */
export async function api(
  srv: RunningServer,
  method: string,
  path: string,
  key: string | null,
  body?: unknown,
  raw?: string,
): Promise<Res> {
  const headers: Record<string, string> = {};
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (body !== undefined || raw !== undefined) headers["content-type"] = "application/json";
  const r = await fetch(srv.base + path, { method, headers, body: raw ?? (body === undefined ? undefined : JSON.stringify(body)) });
  const text = await r.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: r.status, body: parsed, text, headers: r.headers };
}

/** The flags of the webhooks tests' servers: the receiver's host allowed and its certificate trusted, a 1 s timeout, 1 shard. */
export const webhookServerArgs = (dispatchers: 1 | 2): string[] => [
  "--webhook-allow-hosts",
  RECEIVER_HOST,
  "--webhook-ca-file",
  CA_FILE,
  "--webhook-timeout",
  "1",
  "--dispatchers",
  String(dispatchers),
  "--shards",
  "1",
];
export const WEBHOOK_SERVER_ARGS = webhookServerArgs(2);

export const nowS = (): number => Math.floor(Date.now() / 1000);

/** The operator key a server generated on its first start, from the banner that shows it once (in the data dir, or in the database with --database). */
export function generatedOperatorKey(srv: RunningServer): string {
  const m = /operator key \(shown once, kept in [^)]*\): (\S+)/.exec(srv.stdout());
  if (!m) throw new Error(`no generated operator key in the log:\n${srv.stdout()}`);
  return m[1];
}

/** Rows of a query on the server's state (state.db, or its database when the tests run on PostgreSQL); `?` placeholders. */
export async function stateRows(dataDir: string, sql: string, ...values: unknown[]): Promise<Record<string, unknown>[]> {
  const url = sharedDatabaseOf(dataDir);
  if (!url) {
    const db = new Database(join(dataDir, "state.db"), { readonly: true });
    try {
      return db.prepare(sql).all(...values) as Record<string, unknown>[];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    let n = 0;
    return (
      await client.query(
        sql.replace(/\?/g, () => `$${++n}`),
        values,
      )
    ).rows;
  } finally {
    await client.end();
  }
}
/** A dispatch's body, parsed. */
export const json = (h: Hit): any => JSON.parse(h.raw.toString("utf8"));

export interface Tenant {
  id: string;
  key: string;
  keyId: string;
}

/**
 * The calls of the webhooks tests: `current()` is the server to call (a test may restart it), `op`
 * its operator key; `receiver` is where mkHook's endpoints point.
 */
export function webhookCalls(current: () => RunningServer, op: string, receiver?: Receiver) {
  const call = (method: string, path: string, key: string | null, body?: unknown, raw?: string): Promise<Res> =>
    api(current(), method, path, key, body, raw);
  let evSeq = 0;
  const ev = (tenant: string, msg: string, type: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    id: `ev-${process.pid}-${++evSeq}`,
    tenant_id: tenant,
    message_id: msg,
    type,
    recipient: `${msg}@example.com`,
    timestamp: nowS(),
    ...extra,
  });
  const post = (events: unknown[]): Promise<Res> => call("POST", "/v1/events", op, { events });
  async function mkTenant(name: string): Promise<Tenant> {
    const t1 = await call("POST", "/v1/tenants", op, { name });
    const k = await call("POST", `/v1/tenants/${t1.body.id}/keys`, op);
    return { id: t1.body.id, key: k.body.key, keyId: k.body.id };
  }
  async function mkHook(
    key: string,
    path: string,
    types: string[],
    extra: Record<string, unknown> = {},
  ): Promise<{ id: string; secret: string }> {
    if (!receiver) throw new Error("mkHook needs a receiver");
    const r = await call("POST", "/v1/webhooks", key, { url: receiver.base + path, event_types: types, ...extra });
    if (r.status !== 201) throw new Error(`create webhook: ${r.status} ${r.text}`);
    return r.body;
  }
  return { api: call, ev, post, mkTenant, mkHook };
}

/**
 * Starts a server with WEBHOOK_SERVER_ARGS on a fresh data dir, reads the operator key it generated
 * (OP) and creates two tenants with a key each (A, B). Retry delays are divided by 1000:
 * LEIDEX_WEBHOOK_TIME_SCALE is set in this process, so a server a test restarts inherits it too.
 * The calls of webhookCalls go to `current()` (the first server unless given; read only after
 * this resolves); mkHook's endpoints are on `receiver`.
 */
export async function webhookBench(t: Teardownable, opts: { receiver?: Receiver; current?: () => RunningServer } = {}) {
  process.env.LEIDEX_WEBHOOK_TIME_SCALE = "1000";
  const dataDir = tempDir(t, "leidex-webhooks-");
  const srv = await startServer(t, { dataDir, shards: 1, args: WEBHOOK_SERVER_ARGS });
  const OP = generatedOperatorKey(srv);
  const { mkTenant } = webhookCalls(() => srv, OP);
  const A: Tenant = await mkTenant("tenant-a");
  const B: Tenant = await mkTenant("tenant-b");
  return { dataDir, srv, OP, A, B, ...webhookCalls(opts.current ?? (() => srv), OP, opts.receiver) };
}
