// Issue 20, the load and start-up items: loads where slices receive no record (item 7), empty or
// torn key files (8), a corrupt state.db (12), long CSV fields (19), clock steps (24) and boolean
// flags (14). Real servers on 127.0.0.1 where the behaviour is the server's, the modules
// themselves where a clock or a parser is the point.

import t from "tap";
import Database from "better-sqlite3";
import { randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { request as httpRequest } from "node:http";
import { join, relative } from "node:path";
import { goldenCopyCsv, importSynthetics } from "./helpers/keyed-extras.js";
import { CsvReader, MAX_FIELD_BYTES, MAX_ROW_BYTES } from "../src/golden-copy/csv.js";
import { parseConfig } from "../src/config/cli.js";
import { RateLimiter } from "../src/http/rate-limit.js";
import { ExpiryGuard, STEP_GRACE_MS } from "../src/keys/expiry-guard.js";
import { KeyStore } from "../src/keys/key-store.js";
import { SqliteKeys } from "../src/keys/sqlite-keys.js";
import { openStateDb } from "../src/store/state-db.js";
import { mapRow } from "./helpers/fixture.js";
import { fetchGot, spawnLeidex, startServer, tempDir } from "./helpers/server.js";

/** Every file under dir, relative to it. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    let names: string[] = [];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(relative(dir, path));
    }
  };
  walk(dir);
  return out.sort();
}

// ---------------------------------------------------------------- item 7: empty slices

t.test("item 7: a one-record golden copy on 2 shards loads, serves, and restarts from its segments (one slice is empty)", async (t) => {
  const dir = tempDir(t);
  const csv = join(dir, "one.csv");
  const { text, header, rows } = goldenCopyCsv(1, []);
  writeFileSync(csv, text);
  const rec = mapRow(header, rows[0]).entity;
  const dataDir = tempDir(t, "leidex-data-");
  const srv = await startServer(t, { source: csv, shards: 2, dataDir });
  t.equal((await srv.json("/v1/stats")).records, 1, "the one record is live");
  t.equal((await srv.json(`/v1/entities/${rec.lei}`)).lei, rec.lei, "looked up by LEI");
  const found = await srv.json(`/v1/entities?q=${encodeURIComponent(rec.legalName!)}&facets=country`);
  t.equal(found.results[0]?.lei, rec.lei, "found by name");
  t.equal((await srv.get("/v1/entities/5493001KJTIIGC8Y1R12")).status, 404, "an LEI not loaded is a 404 (whichever slice it falls to)");
  t.equal((await srv.get("/v1/entities?q=zzqxv")).body.found, 0, "a search with no hit answers");
  await srv.stop();
  const segments = filesUnder(join(dataDir, "collections")).filter((f) => /slice-\d+\.(seg|docs)$/.test(f));
  t.equal(segments.length, 4, "both slices persisted, the empty one too: a segment and a document file each");

  const again = await startServer(t, { source: csv, shards: 2, dataDir });
  t.match(again.stdout(), /from its segments/, "the restart serves the segments, the empty one included");
  t.equal((await again.json(`/v1/entities/${rec.lei}`)).lei, rec.lei, "and answers from them");
  t.equal((await again.json(`/v1/entities?q=${encodeURIComponent(rec.legalName!)}`)).results[0]?.lei, rec.lei);
  await again.stop();
});

t.test("item 7: ten records on 16 shards load, leave exactly their files, and restart", async (t) => {
  const dir = tempDir(t);
  const csv = join(dir, "ten.csv");
  writeFileSync(csv, goldenCopyCsv(10, []).text);
  const dataDir = tempDir(t, "leidex-data-");
  const srv = await startServer(t, { source: csv, shards: 16, dataDir });
  t.equal((await srv.json("/v1/stats")).records, 10);
  await srv.stop();
  const files = filesUnder(join(dataDir, "collections"));
  t.equal(files.filter((f) => f.endsWith(".seg")).length, 16, "16 segments");
  t.equal(files.filter((f) => f.endsWith(".docs")).length, 16, "16 document files");
  t.same(
    files.filter((f) => !/(slice-\d+\.(seg|docs)|manifest\.json|current\.json|level2\/[a-z-]+\.(tbl|tbl\.idx|jsonl))$/.test(f)),
    [],
    "nothing else: no partial or orphan file",
  );
  t.equal(
    files.filter((f) => f.includes("/level2/")).length,
    19,
    "the Level 2 tables (empty: no Level 2 given), 7 with their index, 2 record files, and the change feed's tracked records with their index and side lines",
  );
  const again = await startServer(t, { source: csv, shards: 16, dataDir });
  t.match(again.stdout(), /from its segments/);
  t.equal((await again.json("/v1/stats")).records, 10);
  await again.stop();
});

t.test("item 7: a load that fails while other slices are writing reports its own error and leaves no file behind", async (t) => {
  const dataDir = tempDir(t, "leidex-data-");
  const first = await startServer(t, { source: "sample", shards: 4, dataDir });
  await first.stop();
  const before = filesUnder(join(dataDir, "collections"));
  // a forced reload at start-up, nothing live yet: every slice finishes at once, and slice 0 fails
  const srv = await startServer(t, {
    source: "sample",
    shards: 4,
    dataDir,
    args: ["--reload-now"],
    env: { LEIDEX_TEST_FAIL_FINISH_SLICE: "0" },
  });
  t.match(srv.stdout(), /load failed: test: slice 0 refuses to finish/, "the first real error is the one reported");
  t.notMatch(srv.stdout() + srv.stderr(), /ENOTEMPTY|ENOENT|could not remove/, "no cleanup error shows");
  t.match(srv.stdout(), /serving lei_sample .* from its segments/, "the collection on disk serves");
  t.equal((await srv.json("/v1/stats")).records, 6147);
  // the other slices pause 500 ms before writing their segments (the test hook): a load that
  // reported its failure before they settled would see their writes land after its cleanup
  await new Promise((r) => setTimeout(r, 1500));
  await srv.stop();
  t.same(filesUnder(join(dataDir, "collections")), before, "the failed load left no segment, document file or partial file");
});

/** Runs the server to its exit, with extra environment. */
async function runLeidexEnv(
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 60_000,
): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const p = spawnLeidex(args, env);
  const timer = setTimeout(() => p.child.kill("SIGKILL"), timeoutMs);
  const code = await p.exited;
  clearTimeout(timer);
  await new Promise((r) => setImmediate(r));
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

// ---------------------------------------------------------------- item 8: key files

t.test(
  "item 8: empty or blank key files (a start cut between create and write) count as absent: new keys, said once, written atomically",
  async (t) => {
    const dataDir = tempDir(t, "leidex-data-");
    writeFileSync(join(dataDir, "bootstrap-key"), "", { mode: 0o600 });
    writeFileSync(join(dataDir, "operator-key"), "  \n\t\n", { mode: 0o600 });
    const srv = await startServer(t, { shards: 1, dataDir });
    const boot = readFileSync(join(dataDir, "bootstrap-key"), "utf8").trim();
    const op = readFileSync(join(dataDir, "operator-key"), "utf8").trim();
    t.match(boot, /^lxb_[0-9A-Za-z]{32}$/, "a new bootstrap key is in its file");
    t.match(op, /^lxo_[0-9A-Za-z]{32}$/, "a new operator key is in its file");
    t.match(
      srv.stdout(),
      new RegExp(`bootstrap-key was empty .*bootstrap API key \\(shown once, kept in .*\\): ${boot}`),
      "one log line says the bootstrap key file was empty and shows the new key",
    );
    t.match(
      srv.stdout(),
      new RegExp(`operator-key was empty .*operator key \\(shown once, kept in .*\\): ${op}`),
      "and likewise for the operator key",
    );
    for (const file of ["bootstrap-key", "operator-key"])
      t.equal(statSync(join(dataDir, file)).mode & 0o777, 0o600, `${file} is mode 0600`);
    t.same(
      readdirSync(dataDir).filter((n) => n.endsWith(".tmp")),
      [],
      "no temporary file is left",
    );
    const keys = await fetchGot(`${srv.base}/keys`, { headers: { "x-search-api-key": boot } });
    t.equal(keys.status, 200, "the new bootstrap key works");
    const tenants = await fetchGot(`${srv.base}/v1/tenants`, { headers: { authorization: `Bearer ${op}` } });
    t.not(tenants.status, 401, "the new operator key is accepted");
    await srv.stop();
    const again = await startServer(t, { shards: 1, dataDir });
    t.match(again.stdout(), `bootstrap API key: ${boot.slice(0, 8)}…`, "a restart keeps the new key and prints its prefix only");
    t.notMatch(again.stdout(), /was empty/);
    await again.stop();
  },
);

t.test("item 8: an unreadable key file refuses the start in one line", async (t) => {
  const dataDir = tempDir(t, "leidex-data-");
  mkdirSync(join(dataDir, "bootstrap-key")); // a directory: reading it fails with EISDIR
  const r = await runLeidexEnv(["--host", "127.0.0.1", "--port", "0", "--data-dir", dataDir, "--shards", "1", "--source", "sample"], {});
  t.equal(r.code, 1);
  t.match(r.stderr.trim(), /^cannot read the bootstrap API key in .*bootstrap-key: .*EISDIR.*remove it/, "says which file and what to do");
  t.equal(r.stderr.trim().split("\n").length, 1, "one line, no stack trace");
});

// ---------------------------------------------------------------- item 12: a corrupt state.db

/** A real state.db of ~500 KB: the keys table with 2,000 rows, checkpointed into the main file. */
function realStateDb(path: string): void {
  const db = new Database(path);
  db.exec(
    "CREATE TABLE api_keys (id INTEGER PRIMARY KEY AUTOINCREMENT, value TEXT NOT NULL UNIQUE, description TEXT NOT NULL, actions TEXT NOT NULL, collections TEXT NOT NULL, expires_at INTEGER NOT NULL, autodelete INTEGER NOT NULL)",
  );
  const insert = db.prepare(
    "INSERT INTO api_keys (value, description, actions, collections, expires_at, autodelete) VALUES (?, ?, '[\"*\"]', '[]', 9999999999, 0)",
  );
  db.transaction(() => {
    for (let i = 0; i < 2000; i++) insert.run(`key-value-${i}`, "d".repeat(200));
  })();
  db.close();
}

for (const [what, damage] of [
  ["garbage bytes", (path: string) => writeFileSync(path, randomBytes(64 * 1024))],
  [
    "a truncated database",
    (path: string) => {
      realStateDb(path);
      truncateSync(path, Math.floor(statSync(path).size * 0.4));
    },
  ],
  [
    "a page overwritten mid-file",
    (path: string) => {
      realStateDb(path);
      const fd = openSync(path, "r+");
      writeSync(fd, randomBytes(4096), 0, 4096, 40 * 4096);
      closeSync(fd);
    },
  ],
] as const) {
  t.test(`item 12: a state.db of ${what} refuses the start in one clear line, exit 1`, async (t) => {
    const dataDir = tempDir(t, "leidex-data-");
    damage(join(dataDir, "state.db"));
    const r = await runLeidexEnv(["--host", "127.0.0.1", "--port", "0", "--data-dir", dataDir, "--shards", "1", "--source", "sample"], {});
    t.equal(r.code, 1, "exit code 1");
    const line = r.stderr.trim();
    t.equal(line.split("\n").length, 1, "one line on stderr");
    t.match(
      line,
      /^refusing to start: .*state\.db is damaged \(.+\);.*keys.*restore it from a backup, or move it aside/,
      "names the file and what to do",
    );
    t.notMatch(line, /SqliteError|\n\s+at /, "no raw error or stack trace");
    t.notMatch(r.stdout, /listening on/, "nothing was served");
  });
}

// ---------------------------------------------------------------- item 19: long CSV fields

/** Rows as field strings, the file fed in chunks of the sizes `sizes` gives in turn. */
function parsedRows(data: Buffer, sizes: () => number): string[][] | string {
  const rows: string[][] = [];
  const reader = new CsvReader((row) => {
    rows.push(Array.from({ length: row.length }, (_, i) => row.field(i)));
  });
  try {
    for (let at = 0; at < data.length;) {
      const n = Math.max(1, sizes());
      reader.push(data.subarray(at, at + n));
      at += n;
    }
    reader.end();
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
  return rows;
}

t.test("item 19: the parser gives the same rows however the file is cut into chunks", async (t) => {
  const sample = Buffer.from(goldenCopyCsv(300, importSynthetics(), { eol: "\r\n", bom: true }).text);
  const whole = parsedRows(sample, () => sample.length);
  t.equal((whole as string[][]).length, 306, "header + 300 sample rows + 5 synthetic ones");
  let seed = 20;
  const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (const max of [1, 7, 64, 4096, 1 << 16]) {
    t.same(
      parsedRows(sample, () => 1 + Math.floor(rnd() * max)),
      whole,
      `chunks of 1 to ${max} bytes`,
    );
  }
  // the edges of quoting, one byte at a time and whole
  const edges = Buffer.from('a,"b""c","",d\r\n"x\ny",,"""",\n\n"","","","","",z\r\n"last"');
  const want = [["a", 'b"c', "", "d"], ["x\ny", "", '"', ""], ["", "", "", "", "", "z"], ["last"]];
  t.same(
    parsedRows(edges, () => edges.length),
    want,
  );
  t.same(
    parsedRows(edges, () => 1),
    want,
    "byte by byte",
  );
  t.match(
    parsedRows(Buffer.from('a\n"open'), () => 1),
    /^error: unterminated quoted field in row 2/,
  );
});

t.test("item 19: a field over 1 MiB or a row over 4 MiB is refused with a clear error; at the limit it is read", async (t) => {
  const row = (fields: string[]): Buffer => Buffer.from(`"LEI","Entity.LegalName"\n${fields.join(",")}\n`);
  const chunks = (): number => 65536;
  const atLimit = parsedRows(row(['"A"', `"${"n".repeat(MAX_FIELD_BYTES)}"`]), chunks);
  t.equal(typeof atLimit === "string" ? atLimit : atLimit[1][1].length, MAX_FIELD_BYTES, "a quoted field of exactly 1 MiB is read");
  t.equal(MAX_FIELD_BYTES, 1 << 20);
  t.equal(MAX_ROW_BYTES, 4 << 20);
  t.match(
    parsedRows(row(['"A"', `"${"n".repeat(MAX_FIELD_BYTES + 1)}"`]), chunks),
    /^error: row 2 has a field longer than 1 MiB, the limit/,
    "quoted, one byte over",
  );
  t.match(
    parsedRows(row(["A", "n".repeat(MAX_FIELD_BYTES + 1)]), chunks),
    /^error: row 2 has a field longer than 1 MiB/,
    "unquoted, one byte over",
  );
  t.match(
    parsedRows(row(["A", "n".repeat(MAX_FIELD_BYTES + 1)]), () => 1 << 30),
    /^error: row 2 has a field longer than 1 MiB/,
    "in one chunk too",
  );
  const wide = Array.from({ length: 5 }, () => `"${"w".repeat(900_000)}"`);
  t.match(parsedRows(row(wide), chunks), /^error: row 2 is longer than 4 MiB, the limit/, "five fields of 900 KB: the row is too long");
  // a 100 MB field (54 s and 5.5 GB before) is refused as soon as its first MiB is read
  const reader = new CsvReader(() => undefined);
  reader.push(Buffer.from('"LEI","Entity.LegalName"\n"A","'));
  const mib = Buffer.alloc(1 << 20, 0x61);
  let pushed = 0;
  let refused = "";
  try {
    for (; pushed < 100; pushed++) reader.push(mib);
  } catch (err) {
    refused = (err as Error).message;
  }
  t.match(refused, /field longer than 1 MiB/);
  t.ok(pushed <= 2, `refused after ${pushed + 1} MiB of the field, not at its end`);
});

t.test(
  "item 19: the import route answers 400 for a field over the limit and the live collection stays; a reload logs it and keeps it",
  async (t) => {
    const dir = tempDir(t);
    const source = join(dir, "golden.csv");
    const good = goldenCopyCsv(6147, importSynthetics());
    writeFileSync(source, good.text);
    const srv = await startServer(t, { source, shards: 2, args: ["--api-key", "load-state-test-key"] });
    const live = (await srv.json("/v1/stats")).records as number;
    t.equal(live, 6152);
    const long = goldenCopyCsv(6147, [
      ...importSynthetics(),
      { ...importSynthetics()[0], lei: "LEIDEXIMPRT000000999", name: "L".repeat(2 << 20) },
    ]).text;
    const r = await fetchGot(`${srv.base}/collections/lei/documents/import`, {
      method: "POST",
      body: long,
      headers: { "x-search-api-key": "load-state-test-key", "content-type": "text/csv" },
    });
    t.equal(r.status, 400, "400");
    t.match(r.body?.message, /row 6154 has a field longer than 1 MiB, the limit/, "the message says which row and the limit");
    t.equal((await srv.json("/v1/stats")).records, live, "the live collection stays");

    writeFileSync(source, long);
    srv.child.kill("SIGHUP");
    const deadline = Date.now() + 60_000;
    while (!/load failed: row 6154 has a field longer than 1 MiB/.test(srv.stdout()) && Date.now() < deadline)
      await new Promise((res) => setTimeout(res, 100));
    t.match(
      srv.stdout(),
      /load failed: row 6154 has a field longer than 1 MiB, the limit .*; lei_\S+ stays live/,
      "the reload logs the reason and keeps the live collection",
    );
    t.equal((await srv.json("/v1/stats")).records, live);
    await srv.stop();
  },
);

// ---------------------------------------------------------------- item 14: boolean flags

t.test("item 14: boolean flags take true/false/1/0/yes/no or stand bare; anything else is refused in one line", async (t) => {
  const reloadNow = (argv: string[], env: NodeJS.ProcessEnv = {}): boolean | string => {
    try {
      const c = parseConfig(argv, env);
      return c === "help" ? "help" : c.reloadNow;
    } catch (err) {
      return (err as Error).message;
    }
  };
  for (const [argv, want] of [
    [["--reload-now"], true],
    [["--reload-now", "true"], true],
    [["--reload-now", "TRUE"], true],
    [["--reload-now", "1"], true],
    [["--reload-now", "yes"], true],
    [["--reload-now=true"], true],
    [["--reload-now", "false"], false],
    [["--reload-now", "0"], false],
    [["--reload-now", "no"], false],
    [["--reload-now=No"], false],
    [[], false],
    [["--reload-now", "--shards", "3"], true],
  ] as const)
    t.equal(reloadNow([...argv]), want, argv.join(" ") || "(no flag)");
  t.equal(reloadNow([], { LEIDEX_RELOAD_NOW: "yes" }), true, "LEIDEX_RELOAD_NOW=yes");
  t.equal(reloadNow(["--reload-now", "no"], { LEIDEX_RELOAD_NOW: "yes" }), false, "the flag wins over the environment");
  for (const bad of [["--reload-now", "maybe"], ["--reload-now=2"], ["--reload-now", ""]]) {
    t.match(
      reloadNow(bad),
      /^--reload-now takes true, false, 1, 0, yes or no \(or the bare flag for true\), got "/,
      `${JSON.stringify(bad)} is refused`,
    );
  }
  t.equal(
    reloadNow([], { LEIDEX_RELOAD_NOW: "perhaps" }),
    `--reload-now takes true, false, 1, 0, yes or no (or the bare flag for true), got "perhaps"`,
  );

  const r = await runLeidexEnv(["--reload-now", "maybe", "--data-dir", tempDir(t)], {});
  t.equal(r.code, 2, "a bad value exits 2, as every bad flag does");
  t.equal(
    r.stderr.split("\n")[0],
    `--reload-now takes true, false, 1, 0, yes or no (or the bare flag for true), got "maybe"`,
    "its first line says why",
  );

  const dataDir = tempDir(t, "leidex-data-");
  const first = await startServer(t, { shards: 1, dataDir });
  await first.stop();
  const again = await startServer(t, { shards: 1, dataDir, args: ["--reload-now", "true"] });
  t.notMatch(again.stdout(), /from its segments/, "--reload-now true loads the source although it is on disk");
  t.match(again.stdout(), /loaded 6147 records as lei_sample/);
  await again.stop();
});

// ---------------------------------------------------------------- item 24: clock steps

t.test("item 24: an upload still arriving survives a reload's cleaning, however old its mtime looks (a forward clock step)", async (t) => {
  const key = "load-state-upload-key";
  const srv = await startServer(t, { shards: 1, args: ["--api-key", key] });
  const csv = Buffer.from(goldenCopyCsv(6147, importSynthetics()).text);
  const half = csv.indexOf("\n", csv.length >> 1) + 1;
  let answer: Promise<{ status: number; text: string }> | null = null;
  const req = httpRequest({
    host: "127.0.0.1",
    port: srv.port,
    path: "/collections/lei/documents/import",
    method: "POST",
    headers: { "x-search-api-key": key, "content-type": "text/csv", "transfer-encoding": "chunked" },
  });
  answer = new Promise((resolve, reject) => {
    req.on("response", (res) => {
      let text = "";
      res
        .setEncoding("utf8")
        .on("data", (c: string) => {
          text += c;
        })
        .on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
  });
  req.write(csv.subarray(0, half));
  const downloads = join(srv.dataDir, "downloads");
  const partOf = (): string | undefined => {
    try {
      return readdirSync(downloads).find((n) => n.startsWith("upload-") && n.endsWith(".part"));
    } catch {
      return undefined;
    }
  };
  while (partOf() === undefined) await new Promise((r) => setTimeout(r, 50));
  const part = join(downloads, partOf()!);
  // what a forward step of the wall clock by two days looks like to an mtime check
  const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
  utimesSync(part, twoDaysAgo, twoDaysAgo);
  const loads = (): number => srv.stdout().match(/loaded 6147 records as/g)?.length ?? 0;
  t.equal(loads(), 1);
  srv.child.kill("SIGHUP"); // the sample is loaded again, and downloads/ cleaned after it
  while (loads() < 2) await new Promise((r) => setTimeout(r, 50));
  t.ok(existsSync(part), "the upload still arriving was left alone");
  req.end(csv.subarray(half));
  const r = await answer;
  t.equal(r.status, 200, r.text);
  t.match(JSON.parse(r.text), { success: true, num_imported: 6152 }, "and it imports once whole");
  t.equal((await srv.json("/v1/stats")).records, 6152);
  await srv.stop();
});

t.test("item 24: an upload an earlier run left half-written is removed by the next load's cleaning", async (t) => {
  const dataDir = tempDir(t, "leidex-data-");
  mkdirSync(join(dataDir, "downloads"));
  const stale = join(dataDir, "downloads", "upload-1-deadbeef.golden-copy.part");
  writeFileSync(stale, "LEI,Entity.LegalName\n");
  const srv = await startServer(t, { shards: 1, dataDir });
  t.notOk(existsSync(stale), "gone after the first load, young as it is");
  await srv.stop();
});

t.test("item 24: the rate limiter's windows run on the monotonic clock: a backward wall-clock step refuses no known client", async (t) => {
  const limiter = new RateLimiter(3, 60);
  t.equal(limiter.take("10.0.0.9").allowed, true);
  const realNow = Date.now;
  const stepped = realNow() - 3_600_000;
  Date.now = () => stepped; // the wall clock steps back an hour
  try {
    t.equal(limiter.take("10.0.0.9").allowed, true, "the second request of three is allowed");
    t.equal(limiter.take("10.0.0.9").allowed, true, "and the third");
    const fourth = limiter.take("10.0.0.9");
    t.equal(fourth.allowed, false, "the fourth is over the limit, as without a step");
    t.equal(fourth.retryAfterSeconds, 20, "and waits one refill (60 s / 3), not the step");
  } finally {
    Date.now = realNow;
  }
});

t.test("item 24: autodelete deletes nothing early on a forward clock step; genuinely expired keys still go at once", async (t) => {
  const db = openStateDb(tempDir(t, "leidex-keys-"));
  t.teardown(() => db.close());
  const store = await KeyStore.open(new SqliteKeys(db));
  const clock = { wallMs: 2_000_000_000_000, monoMs: 1000 };
  const guard = new ExpiryGuard(
    () => clock.wallMs,
    () => clock.monoMs,
  );
  const W0 = clock.wallMs / 1000;
  const key = async (value: string, expiresAt: number) =>
    (await store.create({ value, description: "", actions: ["documents:search"], collections: [], expiresAt, autodelete: true }))!;
  const inAnHour = await key("expires-in-an-hour", W0 + 3600);
  const soon = await key("expires-in-ten-seconds", W0 + 10);
  const sweep = (): Promise<number[]> => store.deleteExpired(Math.floor(clock.wallMs / 1000), (expired) => guard.confirm(expired));
  const ids = (): number[] => store.list().map((k) => k.id);

  clock.wallMs += 7_200_000; // the wall clock jumps two hours ahead ...
  clock.monoMs += 15_000; // ... during 15 s of real time
  t.same(await sweep(), [soon.id], "the key whose expiry really passed goes; the one due in an hour stays");
  clock.monoMs += 15_000;
  t.same(await sweep(), [], "and stays at the next round");
  clock.wallMs = W0 * 1000 + 30_000; // the step is put right
  t.same(await sweep(), [], "nothing expired by the wall clock any more");
  t.ok(ids().includes(inAnHour.id));

  const inADay = await key("expires-in-a-day", W0 + 86_400);
  clock.wallMs += 2 * 86_400_000; // a step that stays (the clock was behind, and is now right)
  t.same(await sweep(), []);
  clock.monoMs += STEP_GRACE_MS - 1;
  t.same(
    await sweep(),
    [inAnHour.id],
    "an hour later by the monotonic clock, the key due in an hour goes; the one due in a day, seen expired for less than the grace, stays",
  );
  clock.monoMs += 1;
  t.same(await sweep(), [inADay.id], "seen expired for the grace (an hour of monotonic time): deleted");

  // the housekeeping's default clocks: the wall clock and performance.now()
  const real = new ExpiryGuard();
  const later = await key("due-in-an-hour-real-clock", Math.floor(Date.now() / 1000) + 3600);
  const realNow = Date.now;
  const stepped = realNow() + 7_200_000;
  Date.now = () => stepped;
  try {
    t.same(
      await store.deleteExpired(Math.floor(Date.now() / 1000), (expired) => real.confirm(expired)),
      [],
      "with the real clocks, a forward step of two hours deletes nothing",
    );
  } finally {
    Date.now = realNow;
  }
  t.ok(ids().includes(later.id));
});
