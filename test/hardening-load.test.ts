// Issue 20, the load and start-up items: loads where slices receive no record (item 7), empty or
// torn key files (8), a corrupt state.db (12), long CSV fields (19), clock steps (24) and boolean
// flags (14). Real servers on 127.0.0.1 where the behaviour is the server's, the modules
// themselves where a clock or a parser is the point.

import t from "tap";
import Database from "better-sqlite3";
import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync, writeSync } from "node:fs";
import { join, relative } from "node:path";
import { goldenCopyCsv } from "./helpers/keyed-extras.js";
import { mapRow } from "./helpers/fixture.js";
import { fetchGot, spawnLeidex, startServer, tempDir } from "./helpers/server.js";

/** Every file under dir, relative to it. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    let names: string[] = [];
    try { names = readdirSync(d); } catch { return; }
    for (const name of names) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path); else out.push(relative(dir, path));
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
  t.same(files.filter((f) => !/(slice-\d+\.(seg|docs)|manifest\.json|current\.json)$/.test(f)), [], "nothing else: no partial or orphan file");
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
  const srv = await startServer(t, { source: "sample", shards: 4, dataDir, args: ["--reload-now"], env: { LEIDEX_TEST_FAIL_FINISH_SLICE: "0" } });
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
async function runLeidexEnv(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const p = spawnLeidex(args, env);
  const timer = setTimeout(() => p.child.kill("SIGKILL"), timeoutMs);
  const code = await p.exited;
  clearTimeout(timer);
  await new Promise((r) => setImmediate(r));
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

// ---------------------------------------------------------------- item 8: key files

t.test("item 8: empty or blank key files (a start cut between create and write) count as absent: new keys, said once, written atomically", async (t) => {
  const dataDir = tempDir(t, "leidex-data-");
  writeFileSync(join(dataDir, "bootstrap-key"), "", { mode: 0o600 });
  writeFileSync(join(dataDir, "operator-key"), "  \n\t\n", { mode: 0o600 });
  const srv = await startServer(t, { shards: 1, dataDir });
  const boot = readFileSync(join(dataDir, "bootstrap-key"), "utf8").trim();
  const op = readFileSync(join(dataDir, "operator-key"), "utf8").trim();
  t.match(boot, /^lxb_[0-9A-Za-z]{32}$/, "a new bootstrap key is in its file");
  t.match(op, /^lxo_[0-9A-Za-z]{32}$/, "a new operator key is in its file");
  t.match(srv.stdout(), new RegExp(`bootstrap-key was empty .*bootstrap API key \\(shown once, kept in .*\\): ${boot}`), "one log line says the bootstrap key file was empty and shows the new key");
  t.match(srv.stdout(), new RegExp(`operator-key was empty .*operator key \\(shown once, kept in .*\\): ${op}`), "and likewise for the operator key");
  for (const file of ["bootstrap-key", "operator-key"]) t.equal(statSync(join(dataDir, file)).mode & 0o777, 0o600, `${file} is mode 0600`);
  t.same(readdirSync(dataDir).filter((n) => n.endsWith(".tmp")), [], "no temporary file is left");
  const keys = await fetchGot(`${srv.base}/keys`, { headers: { "x-search-api-key": boot } });
  t.equal(keys.status, 200, "the new bootstrap key works");
  const tenants = await fetchGot(`${srv.base}/v1/tenants`, { headers: { authorization: `Bearer ${op}` } });
  t.not(tenants.status, 401, "the new operator key is accepted");
  await srv.stop();
  const again = await startServer(t, { shards: 1, dataDir });
  t.match(again.stdout(), `bootstrap API key: ${boot.slice(0, 8)}…`, "a restart keeps the new key and prints its prefix only");
  t.notMatch(again.stdout(), /was empty/);
  await again.stop();
});

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
  db.exec("CREATE TABLE api_keys (id INTEGER PRIMARY KEY AUTOINCREMENT, value TEXT NOT NULL UNIQUE, description TEXT NOT NULL, actions TEXT NOT NULL, collections TEXT NOT NULL, expires_at INTEGER NOT NULL, autodelete INTEGER NOT NULL)");
  const insert = db.prepare("INSERT INTO api_keys (value, description, actions, collections, expires_at, autodelete) VALUES (?, ?, '[\"*\"]', '[]', 9999999999, 0)");
  db.transaction(() => { for (let i = 0; i < 2000; i++) insert.run(`key-value-${i}`, "d".repeat(200)); })();
  db.close();
}

for (const [what, damage] of [
  ["garbage bytes", (path: string) => writeFileSync(path, randomBytes(64 * 1024))],
  ["a truncated database", (path: string) => { realStateDb(path); truncateSync(path, Math.floor(statSync(path).size * 0.4)); }],
  ["a page overwritten mid-file", (path: string) => {
    realStateDb(path);
    const fd = openSync(path, "r+");
    writeSync(fd, randomBytes(4096), 0, 4096, 40 * 4096);
    closeSync(fd);
  }],
] as const) {
  t.test(`item 12: a state.db of ${what} refuses the start in one clear line, exit 1`, async (t) => {
    const dataDir = tempDir(t, "leidex-data-");
    damage(join(dataDir, "state.db"));
    const r = await runLeidexEnv(["--host", "127.0.0.1", "--port", "0", "--data-dir", dataDir, "--shards", "1", "--source", "sample"], {});
    t.equal(r.code, 1, "exit code 1");
    const line = r.stderr.trim();
    t.equal(line.split("\n").length, 1, "one line on stderr");
    t.match(line, /^refusing to start: .*state\.db is damaged \(.+\);.*keys.*restore it from a backup, or move it aside/, "names the file and what to do");
    t.notMatch(line, /SqliteError|\n\s+at /, "no raw error or stack trace");
    t.notMatch(r.stdout, /listening on/, "nothing was served");
  });
}
