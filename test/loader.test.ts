// Loading golden copies: columns in any order with an extra one (plus BOM and CRLF), a zip
// source, an http URL source (readiness only once loaded), and loads that must fail with a
// non-zero exit and a clear message.

import t, { type Test } from "tap";
import { createServer, type Server } from "node:http";
import { readFileSync, writeFileSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import {
  csvLine,
  ENTITY_KEYS,
  leiValid,
  readSample,
  seededRandom,
  shuffle,
  writeFixture,
  zipSingle,
  type Fixture,
} from "./helpers/fixture.js";
import { facetCounts } from "./helpers/model.js";
import { WARM_UP_MIN_RECORDS, WARM_UP_NAMES } from "../src/lei/warm-up.js";
import { fetchGot, metric, pMap, runLeidex, spawnLeidex, startServer, tempDir, type RunningServer, freePort } from "./helpers/server.js";

const dir = tempDir(t);
const fx = writeFixture(dir);

/** Lookups of a seeded selection + every synthetic row equal the model. */
async function checkContent(t: Test, srv: RunningServer, fx: Fixture, n = 80): Promise<void> {
  const stats = await srv.json("/v1/stats");
  t.equal(stats.records, fx.model.length, "every row loaded");
  const picks = [...shuffle(fx.model, seededRandom(n)).slice(0, n), ...fx.synthetic];
  const wrong: string[] = [];
  await pMap(picks, 4, async (rec) => {
    const r = await srv.get(`/v1/entities/${rec.entity.lei}`);
    if (r.status !== 200) {
      wrong.push(`${rec.entity.lei} -> ${r.status}`);
      return;
    }
    for (const k of ENTITY_KEYS)
      if (r.body[k] !== rec.entity[k])
        wrong.push(`${rec.entity.lei}.${k} = ${JSON.stringify(r.body[k])}, want ${JSON.stringify(rec.entity[k])}`);
  });
  t.same(wrong.slice(0, 10), [], `${picks.length} records equal their CSV rows`);
  for (const field of ["registrationStatus", "category", "country"]) {
    t.same(await srv.json(`/v1/facets/${field}`), facetCounts(fx.model, field), `facet ${field} equals the data`);
  }
  const ru = fx.synthetic.find((r) => r.otherNames.length > 0)!;
  const byOther = await srv.json(`/v1/entities?q=Snezhnariya&fields=name`);
  t.equal(byOther.results[0]?.lei, ru.entity.lei, "transliterated names indexed");
}

t.test("columns in another order, an extra column, BOM and CRLF", async (t) => {
  const head = readFileSync(fx.shuffledCsv, "utf8").split("\r\n")[0];
  t.ok(head.startsWith('\uFEFF"Entity.LegalName"'), "the file starts with a BOM and the legal name column");
  t.match(head, /Leidex\.Test\.UnknownColumn/, "holds an unknown column");
  const srv = await startServer(t, { source: fx.shuffledCsv, shards: 3 });
  await checkContent(t, srv, fx);
  const s = await srv.json("/v1/stats");
  t.match(s.source, /shuffled\.csv/);
  t.equal(s.published, null);
  await srv.stop();
});

t.test("a zip source (one CSV entry), published taken from the golden-copy file name", async (t) => {
  const srv = await startServer(t, { source: fx.zip, shards: 1 });
  await checkContent(t, srv, fx, 40);
  const s = await srv.json("/v1/stats");
  t.equal(s.published, fx.zipPublished, "published from 20240505-0800-gleif-goldencopy...");
  t.equal(s.downloadSeconds, null, "a local zip was not downloaded");
  t.notMatch(s.source, /bundled/i);
  await srv.stop();
});

function listen(server: Server): Promise<number> {
  return new Promise((res) => server.listen(0, "127.0.0.1", () => res((server.address() as { port: number }).port)));
}

/** Polls until `listening on` shows in stdout or the process exits; returns whether it listens. */
async function announced(p: ReturnType<typeof spawnLeidex>, timeoutMs = 60_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (/listening on/.test(p.stdout())) return true;
    if (p.child.exitCode !== null || p.child.signalCode !== null) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

t.test("not ready until the data is live, ready after", async (t) => {
  const port = await freePort();
  const key = "kx-loader-not-ready-0123456789";
  const p = spawnLeidex([
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "--data-dir",
    tempDir(t),
    "--shards",
    "1",
    "--rate-limit",
    "0",
    "--source",
    fx.zip,
    "--api-key",
    key,
  ]);
  t.teardown(async () => {
    if (p.child.exitCode === null) {
      p.child.kill("SIGKILL");
      await p.exited;
    }
  });
  // the first answer comes while the ~6,000 rows are still loading
  const t0 = Date.now();
  let first: Awaited<ReturnType<typeof fetchGot>> | null = null;
  for (let i = 0; i < 1200 && !first; i++) {
    first = await fetchGot(`http://127.0.0.1:${port}/health/ready`).catch(() => null);
    if (!first) await new Promise((r) => setTimeout(r, 25));
  }
  t.comment(`first answer after ${Date.now() - t0} ms`);
  t.ok(first, "the server answers");
  t.equal(first?.status, 503, "/health/ready is 503 while loading");
  t.equal(first?.body?.status, "loading");
  const search = await fetchGot(`http://127.0.0.1:${port}/v1/entities?q=bank`);
  if (search.status !== 200) {
    // (200 only if the load finished in between)
    t.equal(search.status, 503, "a search before the data is live -> 503");
    t.type(search.body?.error, "string", "with an error body");
    t.ok(search.headers.get("retry-after"), "and Retry-After");
    // every area answers not-ready alike: 503 with Retry-After, in its own error shape
    const lookup = await fetchGot(`http://127.0.0.1:${port}/v1/entities/${fx.model.find((m) => leiValid(m.entity.lei))!.entity.lei}`);
    const keyed = await fetchGot(`http://127.0.0.1:${port}/collections/lei/documents/search?q=bank`, {
      headers: { "X-TYPESENSE-API-KEY": key },
    });
    for (const [what, r, shape] of [
      ["a lookup", lookup, "error"],
      ["a keyed search", keyed, "message"],
    ] as const) {
      if (r.status === 200) continue; // the load finished in between
      t.equal(r.status, 503, `${what} before the data is live -> 503`);
      t.equal(r.headers.get("retry-after"), "5", `${what}: Retry-After`);
      t.type(r.body?.[shape], "string", `${what}: {"${shape}": ...}`);
    }
    t.equal((await fetchGot(`http://127.0.0.1:${port}/health`)).status, 200, "/health is 200 while loading");
  }
  t.ok(await announced(p), "announced once loaded");
  t.comment(`announced after ${Date.now() - t0} ms`);
  const ready = await fetchGot(`http://127.0.0.1:${port}/health/ready`);
  t.equal(ready.status, 200, "/health/ready is 200 once data is live");
  t.equal(ready.body?.records, fx.model.length, "and counts the records");
  t.equal((await fetchGot(`http://127.0.0.1:${port}/v1/entities?q=bank`)).status, 200, "searches work");
  p.child.kill("SIGTERM");
  t.equal(await p.exited, 0);
  t.comment(`exited after ${Date.now() - t0} ms`);
});

// An http(s) source is downloaded to the data dir (redirects followed), then loaded.
t.test("an http URL source: downloaded, loaded, published from its name", async (t) => {
  const zip = readFileSync(fx.zip);
  const name = "20240506-0000-gleif-goldencopy-lei2-golden-copy.csv.zip";
  let requests = 0;
  const files = createServer((req, res) => {
    requests++;
    if (req.url === "/moved.zip") {
      res.writeHead(302, { Location: `/golden/${name}` }).end();
      return;
    }
    if (req.url !== `/golden/${name}`) {
      res.writeHead(404).end("no");
      return;
    }
    res.writeHead(200, { "Content-Type": "application/zip", "Content-Length": String(zip.length) });
    const half = Math.floor(zip.length / 2);
    res.write(zip.subarray(0, half));
    setTimeout(() => res.end(zip.subarray(half)), 300);
  });
  const filePort = await listen(files);
  t.teardown(
    () =>
      new Promise<void>((r) => {
        files.closeAllConnections();
        files.close(() => r());
      }),
  );

  const dataDir = tempDir(t, "leidex-http-");
  const srv = await startServer(t, { source: `http://127.0.0.1:${filePort}/golden/${name}`, shards: 1, dataDir });
  const s = await srv.json("/v1/stats");
  t.equal(s.records, fx.model.length, "every row loaded");
  t.equal(s.published, "2024-05-06T00:00:00Z", "published from the URL's file name");
  t.ok(typeof s.downloadSeconds === "number" && s.downloadSeconds >= 0.25, `downloadSeconds measured (${s.downloadSeconds})`);
  t.match(s.source, new RegExp(`127\\.0\\.0\\.1:${filePort}`), "source names the URL");
  const one = fx.synthetic[0];
  t.same(await srv.json(`/v1/entities/${one.entity.lei}`), one.entity, "content correct");
  t.equal(requests, 1, "downloaded once");
  const downloads = join(dataDir, "downloads");
  t.ok(existsSync(downloads) && readdirSync(downloads).includes(name), "kept in <data-dir>/downloads under its name");
  t.notOk(existsSync(downloads) && readdirSync(downloads).some((f) => f.endsWith(".part")), "no partial file left");
  t.equal(await srv.stop(), 0, "exits 0 on SIGTERM");

  // a redirect is followed
  const redirected = await startServer(t, { source: `http://127.0.0.1:${filePort}/moved.zip`, shards: 1 });
  t.equal((await redirected.json("/v1/stats")).records, fx.model.length, "a 302 is followed");
  await redirected.stop();

  // an HTTP error is a failed load that says so
  const r = await runLeidex([
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--data-dir",
    tempDir(t),
    "--shards",
    "1",
    "--source",
    `http://127.0.0.1:${filePort}/nope.zip`,
  ]);
  t.not(r.code, 0, "HTTP 404 -> non-zero exit");
  t.match(r.stderr, /404/, "the message says 404");
  const port = await freePort();
  const refused = await runLeidex([
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--data-dir",
    tempDir(t),
    "--shards",
    "1",
    "--source",
    `http://127.0.0.1:${port}/x.zip`,
  ]);
  t.not(refused.code, 0, "nothing listening -> non-zero exit");
  t.match(refused.stderr, /ECONNREFUSED|refused|connect/i, "the message says the connection was refused");
});

t.test("loads that must fail: non-zero exit, a clear message, never listening", async (t) => {
  const { header, rows } = readSample();
  const write = (name: string, content: string | Buffer): string => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  const without = (col: string): string => {
    const keep = header.map((_, i) => i).filter((i) => header[i] !== col);
    return [keep.map((i) => header[i]), ...rows.slice(0, 50).map((r) => keep.map((i) => r[i]))].map(csvLine).join("\n") + "\n";
  };

  const cases: { label: string; source: string; message: RegExp }[] = [
    { label: "no LEI column", source: write("no-lei.csv", without("LEI")), message: /LEI/ },
    { label: "no Entity.LegalName column", source: write("no-name.csv", without("Entity.LegalName")), message: /Entity\.LegalName/ },
    { label: "empty file", source: write("empty.csv", ""), message: /empty|no header|no records/i },
    { label: "header only", source: write("header-only.csv", csvLine(header) + "\n"), message: /no records|empty/i },
    { label: "file not found", source: join(dir, "does-not-exist.csv"), message: /not found|no such file|ENOENT/i },
    { label: "truncated zip", source: write("truncated.zip", readFileSync(fx.zip).subarray(0, 5000)), message: /zip/i },
    { label: "zip without a CSV", source: write("no-csv.zip", zipSingle("readme.txt", Buffer.from("hello"))), message: /csv/i },
    {
      label: "unterminated quote",
      source: write("unterminated.csv", csvLine(header) + "\n" + csvLine(rows[0]) + '\n"5493001KJTIIGC8Y1R12,"broken\n'),
      message: /unterminated|quote/i,
    },
  ];
  await pMap(cases, 2, async (c) => {
    const r = await runLeidex(
      ["--host", "127.0.0.1", "--port", "0", "--data-dir", tempDir(t), "--shards", "1", "--source", c.source],
      60_000,
    );
    t.not(r.code, 0, `${c.label}: non-zero exit`);
    t.type(r.code, "number", `${c.label}: exits by itself (not killed)`);
    t.match(r.stderr, c.message, `${c.label}: message says why (${r.stderr.trim().split("\n")[0]})`);
    t.match(r.stderr, /fail/i, `${c.label}: says the load failed`);
    t.notMatch(r.stdout, /listening on/, `${c.label}: never announced listening`);
  });
});

// A column's codes are kept as narrow as its values allow (one byte, then two, then four) while
// a slice is built. One slice with 70,000 distinct cities crosses both widths: cities first seen
// before, between and after the widenings must all filter exactly.
t.test("a column with more than 65,536 values: every city still filters exactly", async (t) => {
  const { header, rows } = readSample();
  const LEI = header.indexOf("LEI"),
    CITY = header.indexOf("Entity.LegalAddress.City");
  const CITIES = 70_000;
  const lines = [csvLine(header)];
  for (let i = 0; i < CITIES; i++) {
    const row = [...rows[i % rows.length]];
    row[LEI] = `LEIDEXCITY${String(i).padStart(8, "0")}00`;
    row[CITY] = `Town ${i}`;
    lines.push(csvLine(row));
  }
  const source = join(tempDir(t), "cities.csv");
  writeFileSync(source, lines.join("\n") + "\n");
  const srv = await startServer(t, { source, shards: 1, rateLimit: 0 });
  t.equal((await srv.json("/v1/stats")).records, CITIES);
  // a collection this large is warmed up before the listening line, through the service and not HTTP
  t.ok(CITIES >= WARM_UP_MIN_RECORDS, "over the warm-up's threshold");
  const out = srv.stdout();
  const warmed = /warmed up: (\d+) searches and (\d+) lookups/.exec(out);
  t.ok(warmed !== null && Number(warmed[1]) >= 200 && Number(warmed[2]) === WARM_UP_NAMES, `warm-up logged: ${warmed?.[0]}`);
  t.ok(out.indexOf("warmed up") < out.indexOf("listening on"), "before the listening line");
  const metrics = (await srv.get("/metrics")).text;
  t.equal(
    metric(metrics, "leidex_http_requests_total", { route: "search", status: "200" }),
    null,
    "no warm-up search counted as a request",
  );
  for (const i of [0, 200, 255, 256, 257, 40_000, 65_534, 65_535, 65_536, 65_537, 69_999]) {
    const page = await srv.json(`/v1/entities?city=${encodeURIComponent(`Town ${i}`)}`);
    t.same(
      page.results.map((e: { lei: string }) => e.lei),
      [`LEIDEXCITY${String(i).padStart(8, "0")}00`],
      `city Town ${i}`,
    );
  }
  await srv.stop();
});

// Docs are ordered by LEI when a slice is finished; an LEI on several rows keeps the file's last
// row (docs/golden-copy.md), wherever its copies lie in the file and in whichever slice.
t.test("an LEI repeated across the file keeps its last row", async (t) => {
  const { header, rows } = readSample();
  const LEI = header.indexOf("LEI"),
    NAME = header.indexOf("Entity.LegalName");
  const UNIQUE = 1_000,
    COPIES = 3;
  const COPY_WORDS = ["Zqxfirstrow", "Zqxmiddlerow", "Zqxlastrow"];
  const rnd = seededRandom(11);
  const copies = shuffle(
    Array.from({ length: UNIQUE * COPIES }, (_, i) => i % UNIQUE),
    rnd,
  );
  const lastCopy = new Map<number, number>();
  const lines = [csvLine(header)];
  copies.forEach((lei) => {
    const row = [...rows[lei]];
    const copy = (lastCopy.get(lei) ?? -1) + 1;
    lastCopy.set(lei, copy);
    row[NAME] = `Repeatwin ${lei} ${COPY_WORDS[copy]}`;
    lines.push(csvLine(row));
  });
  const source = join(tempDir(t), "repeated.csv");
  writeFileSync(source, lines.join("\n") + "\n");
  const srv = await startServer(t, { source, shards: 2, rateLimit: 0 });
  t.equal((await srv.json("/v1/stats")).records, UNIQUE, "one record a distinct LEI");
  const wrong: string[] = [];
  await pMap(
    Array.from({ length: UNIQUE }, (_, i) => i),
    8,
    async (i) => {
      const r = await srv.get(`/v1/entities/${rows[i][LEI]}`);
      if (r.body.legalName !== `Repeatwin ${i} ${COPY_WORDS[COPIES - 1]}`)
        wrong.push(`${rows[i][LEI]}: ${r.status} ${JSON.stringify(r.body.legalName)}`);
    },
  );
  t.same(wrong.slice(0, 5), [], "every LEI answers with its last row");
  t.equal((await srv.json(`/v1/entities?q=Zqxfirstrow&fields=name&limit=1`)).found, 0, "earlier rows are not searchable");
  t.equal((await srv.json(`/v1/entities?q=Zqxlastrow&fields=name&limit=1`)).found, UNIQUE, "the last rows are");
  await srv.stop();
});
