// Issue 25, index replicas: every node records the publication it serves in the shared store. A
// node that serves an older publication than a peer is not ready (/health/ready 503 `behind`,
// saying why) and loads its source again, once per newer publication; in a rolling reload the
// other node follows the first by itself, and a client alternating between them sees no failure.

import t from "tap";
import pg from "pg";
import { generateKeyPairSync, sign } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { readSample } from "./helpers/fixture.js";
import { csvText, GleifImitation, sampleGoldenCopy } from "./helpers/gleif-imitation.js";
import { POSTGRES_MISSING, privatePostgres } from "./helpers/postgres.js";
import { startServer, tempDir, type RunningServer } from "./helpers/server.js";

const MORNING = "2026-09-30T08:00:00Z";
const EVENING = "2026-09-30T16:00:00Z";

interface Ready {
  status: string;
  collection?: string;
  published?: string | null;
  peer?: { node: string; collection: string; published: string };
  reason?: string;
}
const ready = async (srv: RunningServer): Promise<{ status: number; body: Ready }> => {
  const r = await srv.get("/health/ready");
  return { status: r.status, body: r.body as Ready };
};
const eventually = async (what: string, check: () => Promise<boolean>, ms = 60_000): Promise<void> => {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(20);
  }
};

t.test(
  "a node serving an older publication than its peer is not ready, says why, and tries once to catch up",
  { skip: POSTGRES_MISSING },
  async (t) => {
    const { url } = await privatePostgres(t);
    const files = tempDir(t);
    const { header, rows } = readSample();
    const fileOf = (stamp: string, take: number): string => {
      const path = join(files, `${stamp}-gleif-goldencopy-lei2-golden-copy.csv`);
      writeFileSync(path, csvText(header, rows.slice(0, take)));
      return path;
    };
    const morning = fileOf("20260930-0800", 3000);
    const evening = fileOf("20260930-1600", 3100);
    const node = (source: string, dataDir = tempDir(t)): Promise<RunningServer> =>
      startServer(t, { shards: 1, source, dataDir, args: ["--database", url] });

    const a = await node(evening);
    t.same(
      await ready(a),
      { status: 200, body: { status: "ready", collection: "lei_20260930-1600", records: 3100 } },
      "A serves the evening",
    );
    const bDir = tempDir(t);
    const b = await node(morning, bDir);
    await eventually("B behind", async () => (await ready(b)).status === 503);
    const behind = await ready(b);
    t.match(behind.body, {
      status: "behind",
      collection: "lei_20260930-0800",
      published: MORNING,
      peer: { collection: "lei_20260930-1600", published: EVENING },
      reason: new RegExp(`serving the publication of ${MORNING} while node node-\\w+ serves ${EVENING}`),
    });
    t.equal((await b.get("/v1/entities?q=bank")).status, 200, "B still answers searches meanwhile");
    await sleep(2500); // several polls: B tries once to catch up, not again and again
    const tries = b
      .stdout()
      .split("\n")
      .filter((l) => l.includes("loading the source again")).length;
    t.equal(tries, 1, "B loaded its source again once");
    t.equal((await ready(b)).status, 503, "its source has nothing newer: still behind");
    t.equal((await ready(a)).status, 200, "A stays ready");

    await b.stop();
    const caughtUp = await node(evening, bDir);
    t.same(
      await ready(caughtUp),
      { status: 200, body: { status: "ready", collection: "lei_20260930-1600", records: 3100 } },
      "on the evening file B is ready",
    );
  },
);

t.test(
  "a rolling reload: the second node follows the first by itself, and a client alternating between them sees no failure",
  { skip: POSTGRES_MISSING },
  async (t) => {
    const { url } = await privatePostgres(t);
    const gleif = await GleifImitation.start();
    t.teardown(() => gleif.close());
    const first = sampleGoldenCopy("2026-09-30 08:00:00");
    const second = sampleGoldenCopy("2026-09-30 16:00:00", [], 6000);
    gleif.publish(first);
    const node = (): Promise<RunningServer> =>
      startServer(t, {
        source: null,
        shards: 1,
        timeoutMs: 90_000,
        args: ["--database", url, ...gleif.args, "--retry-seconds", "1"],
      });
    const [a, b] = await Promise.all([node(), node()]);
    for (const srv of [a, b]) t.match(await ready(srv), { status: 200, body: { collection: first.collection } }, "both serve the morning");

    // the client: searches and lookups, alternating between the nodes, until the reload is over
    let stop = false;
    const failures: string[] = [];
    let sent = 0;
    const client = (async () => {
      const lei = rowsLei();
      for (let i = 0; !stop; i++) {
        const srv = i % 2 === 0 ? a : b;
        const path = i % 4 < 2 ? `/v1/entities?q=${i % 3 === 0 ? "bank" : "holding"}` : `/v1/entities/${lei}`;
        const r = await srv.get(path);
        sent++;
        if (r.status !== 200) failures.push(`${path} on ${srv === a ? "A" : "B"}: ${r.status}`);
      }
    })();

    gleif.publish(second);
    a.child.kill("SIGHUP");
    await eventually("A serves the evening", async () => (await ready(a)).body.collection === second.collection);
    await eventually("B follows", async () => (await ready(b)).body.collection === second.collection && (await ready(b)).status === 200);
    stop = true;
    await client;
    t.same(failures, [], `no failed request of ${sent}`);
    t.ok(sent > 50, "the client kept asking throughout");
    t.match(
      b.stdout(),
      /serving the publication of 2026-09-30T08:00:00Z while node node-\w+ serves 2026-09-30T16:00:00Z: loading the source again/,
      "B caught up by itself",
    );
    t.equal((await (await b.get("/v1/stats")).body.records) as number, 6000, "B serves the evening's records");
  },
);

/** An LEI both publications hold. */
function rowsLei(): string {
  const { header, rows } = readSample();
  return rows[0][header.indexOf("LEI")];
}

t.test(
  "per-IP limits hold across the nodes: what an address spent on one is charged on the other",
  { skip: POSTGRES_MISSING },
  async (t) => {
    const { url } = await privatePostgres(t);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    t.teardown(() => db.end());
    /** Once A's spending of `limiter` is written whole, B charges it at its next tick (each second). */
    const chargedOnB = async (limiter: string, tokens: number): Promise<void> => {
      await eventually(`A's ${limiter} spending written`, async () => {
        const { rows } = await db.query<{ n: string | null }>(
          "SELECT sum(value::numeric) AS n FROM rate_spent, jsonb_each_text(spent) WHERE limiter = $1",
          [limiter],
        );
        return Number(rows[0].n ?? 0) >= tokens;
      });
      await sleep(1_500);
    };
    const node = (): Promise<RunningServer> => startServer(t, { shards: 1, rateLimit: 20, rateWindow: 600, args: ["--database", url] });
    const [a, b] = await Promise.all([node(), node()]);
    const lei = rowsLei();
    const statuses = async (srv: RunningServer, n: number): Promise<number[]> => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await srv.get(`/v1/entities/${lei}`)).status);
      return out;
    };
    t.same(await statuses(a, 12), new Array(12).fill(200), "12 of the 20 spent on A");
    await chargedOnB("requests", 12);
    const onB = await statuses(b, 12);
    t.same(onB, [...new Array(8).fill(200), ...new Array(4).fill(429)], "B allows the 8 left, then 429 (alone it would allow 12)");

    // the key-guessing guard too: 30 bad keys a minute per address, over both nodes
    const bad = async (srv: RunningServer, n: number): Promise<number[]> => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await srv.get("/keys", { headers: { "x-typesense-api-key": `wrong-${i}` } })).status);
      return out;
    };
    t.same(await bad(a, 20), new Array(20).fill(401), "20 bad keys on A");
    await chargedOnB("guessing", 20);
    const guesses = await bad(b, 15);
    // the guard refills half a key a second: the seconds since A's guesses give B one or two more
    const allowed = guesses.indexOf(429);
    t.ok(allowed >= 10 && allowed <= 13, `B allows the 10 left of the 30, and what refilled since: ${allowed}`);
    t.same(guesses.slice(allowed), new Array(15 - allowed).fill(429), "then refuses: alone it would have allowed all 15");
  },
);

t.test("a licence activated on one node applies on the other; removed there, it is gone on both", { skip: POSTGRES_MISSING }, async (t) => {
  const { url } = await privatePostgres(t);
  const issuer = generateKeyPairSync("ed25519");
  const keyFile = join(tempDir(t), "license.pub.pem");
  writeFileSync(keyFile, issuer.publicKey.export({ type: "spki", format: "pem" }));
  const boot = "replicas-bootstrap-key-0123456789";
  const node = (): Promise<RunningServer> =>
    startServer(t, {
      shards: 1,
      rateLimit: 5,
      rateWindow: 3600,
      args: ["--database", url, "--api-key", boot, "--license-public-key", keyFile],
    });
  const [a, b] = await Promise.all([node(), node()]);
  const now = Math.floor(Date.now() / 1000);
  const document = Buffer.from(
    JSON.stringify({
      licensee: "Example Partner Ltd",
      tier: "partner",
      issued_at: now - 60,
      expires_at: now + 86_400,
      entitlements: { clients: ["127.0.0.1", "::1"], rate_limit: 10_000, batch_size: 2000 },
    }),
  );
  const activated = await fetch(`${a.base}/license/activate`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      license: document.toString("base64url"),
      signature: sign(null, document, issuer.privateKey).toString("base64url"),
    }),
  });
  t.equal(activated.status, 200, "activated on A");
  await eventually("B applies it", async () => (await b.get("/license")).body?.activation?.state === "active", 5_000);
  const lei = rowsLei();
  const statuses: number[] = [];
  for (let i = 0; i < 10; i++) statuses.push((await b.get(`/v1/entities/${lei}`)).status);
  t.same(statuses, new Array(10).fill(200), "B gives the licensed client its own limit: 10 requests where 5 an hour is the default");

  const removed = await fetch(`${b.base}/license`, { method: "DELETE", headers: { "x-typesense-api-key": boot } });
  t.equal(removed.status, 200, "removed on B");
  await eventually("A drops it", async () => (await a.get("/license")).body?.activation?.state === "none", 5_000);
  t.pass("and A serves without it");
});
