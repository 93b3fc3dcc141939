// Issue 44: the server as a production install runs it. One copy of this checkout's files (what
// a clone of it holds) gets the checkout's installed packages (or, with LEIDEX_TEST_NPM_CI=1, its
// own `npm ci` from the local npm cache) and is built, then pruned of dev dependencies with
// `npm prune --omit=dev`, made read-only, and owned by root while the server runs as another
// user (nobody) where the tests run as root: a user never writes files it neither owns nor has
// write bits on, where root ignores both. As any other user, the tree is read-only to that user.
//
// On it: every package dist/ imports is a dependency; the server starts on the bundled sample
// with its data directory elsewhere, answers a search and a lookup, and writes nothing under the
// installation; `--database` starts against a real PostgreSQL; without the pg package a server
// without --database starts as ever and one with it stops with one line.

import t from "tap";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { POSTGRES_MISSING, privatePostgres } from "./helpers/postgres.js";
import { ROOT, runLeidex, startServer, tempDir, type Launch } from "./helpers/server.js";

// a copy, a build and a prune of the whole checkout: minutes on a busy 2-core runner
t.setTimeout(900_000);

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
const SETPRIV = ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "--"];

const top = mkdtempSync(join(tmpdir(), "leidex-install-"));
chmodSync(top, 0o755); // the service user walks into it
t.teardown(() => {
  execFileSync("chmod", ["-R", "u+w", top]);
  rmSync(top, { recursive: true, force: true });
});
const install = join(top, "leidex");

/** what a clone of this checkout would hold, uncommitted edits included */
function copyCheckout(): void {
  if (!existsSync(join(ROOT, ".git"))) {
    // a copy that is no git checkout (scripts/with-node.sh makes one): all but what builds and installs make
    const skip = new Set(["node_modules", "dist", ".tap"].map((d) => join(ROOT, d)));
    cpSync(ROOT, install, { recursive: true, filter: (from) => !skip.has(from) });
    return;
  }
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" })
    .split("\0")
    .filter((f) => f !== "" && !f.startsWith("node_modules"));
  for (const f of files) {
    const from = join(ROOT, f);
    if (!existsSync(from)) continue; // deleted, not yet committed
    mkdirSync(dirname(join(install, f)), { recursive: true });
    cpSync(from, join(install, f));
  }
}

function run(command: string, args: string[]): void {
  execFileSync(command, args, {
    cwd: install,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, npm_config_update_notifier: "false" },
  });
}

/** every file under dir, with its mode and mtime: to show nothing changed */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      const s = statSync(p, { throwIfNoEntry: false });
      if (s) out.set(relative(dir, p), `${s.mode} ${s.size} ${s.mtimeMs}`);
      if (e.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out;
}

copyCheckout();
if (process.env.LEIDEX_TEST_NPM_CI === "1") {
  // as a user would (its prepare script builds): about 5 minutes here, most of it compiling better-sqlite3
  run("npm", ["ci", "--prefer-offline", "--no-audit", "--no-fund"]);
} else {
  // the checkout's own installed packages (what `npm ci` gives from its lockfile; .ci/run installs
  // them), copied rather than installed again, then the build as `npm ci`'s prepare runs it
  execFileSync("cp", ["-a", `${join(ROOT, "node_modules")}/.`, join(install, "node_modules")]);
  run("npm", ["run", "build"]);
}
run("npm", ["prune", "--omit=dev", "--prefer-offline", "--no-audit", "--no-fund"]);
if (asRoot) execFileSync("chown", ["-R", "0:0", install]);
execFileSync("chmod", ["-R", "a-w", install]);

// the helper runs the server without the test runner's hooks in NODE_OPTIONS, which would write under this checkout
const launch: Launch = {
  main: join(install, "dist/src/main.js"),
  cwd: install,
  prefix: asRoot ? SETPRIV : [],
};
/** a data directory the service user owns, outside the installation */
function dataDir(): string {
  const dir = join(tempDir(t, "leidex-data-"), "data");
  mkdirSync(dir);
  if (asRoot) chownSync(dir, NOBODY, NOBODY);
  chmodSync(dirname(dir), 0o755);
  return dir;
}
// as a service starts it: without a cache directory main does not pick, or root's home
const env = {
  LEIDEX_DATABASE: undefined,
  LEIDEX_CACHE_DIR: undefined,
  XDG_CACHE_HOME: undefined,
  HOME: asRoot ? "/nonexistent" : process.env.HOME,
};

t.test("every package the built server imports is a dependency", async (t) => {
  const manifest = JSON.parse(readFileSync(join(install, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  const builtins = new Set(builtinModules);
  const found = new Map<string, string>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      // the page's bundler runs at build time only
      else if (p.endsWith(".js") && !p.endsWith("web/build-assets.js")) {
        const text = readFileSync(p, "utf8");
        const specs = [
          ...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*["']([@a-zA-Z][\w@/.-]*)["']/gm),
          ...text.matchAll(/^\s*import\s*["']([@a-zA-Z][\w@/.-]*)["']/gm),
          ...text.matchAll(/\b(?:import|require)\s*\(\s*["']([@a-zA-Z][\w@/.-]*)["']\s*\)/g),
        ];
        for (const m of specs) {
          const spec = m[1];
          if (spec.startsWith("node:") || builtins.has(spec) || spec.includes("$")) continue;
          const name = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0];
          found.set(name, relative(install, p));
        }
      }
    }
  };
  walk(join(install, "dist/src"));
  walk(join(install, "dist/workers"));
  t.ok(found.size > 5, "imports found");
  for (const [name, where] of found) t.ok(manifest.dependencies[name], `${name} (imported by ${where}) is a dependency`);
});

t.test("the pruned, read-only install serves, and writes nothing under itself", async (t) => {
  const before = snapshot(install);
  const data = dataDir();
  const srv = await startServer(t, { launch, dataDir: data, shards: 1, workers: 1, env });
  const found = await srv.json<{ results: { lei: string }[] }>("/v1/entities?q=deutsche%20bank");
  t.ok(found.results.length > 0, "a search finds entities");
  const lei = found.results[0].lei;
  t.equal((await srv.get(`/v1/entities/${lei}`)).status, 200, "a lookup answers");
  t.equal((await srv.stop()) as number, 0, "stops cleanly");
  t.same(
    [...snapshot(install)].filter(([p, s]) => before.get(p) !== s),
    [],
    "no file under the installation changed",
  );
  t.same(snapshot(install).size, before.size, "none was added");
  if (asRoot) t.equal(statSync(data).uid, NOBODY, "the service user ran it");
  // on a glibc older than 2.38 the HTTP addon is adapted (src/http/uws.ts): the copy went under
  // the data directory, beside the hashes it is checked against
  const glibc = (process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header.glibcVersionRuntime;
  if (glibc !== undefined && Number(glibc.split(".")[1]) < 38 && glibc.startsWith("2.")) {
    const cache = join(data, "cache");
    const files = readdirSync(cache).sort();
    t.equal(files.length, 2, "the adapted addon and its hashes are in <data-dir>/cache");
    t.match(files[0], /^uws-.*\.node$/);
    t.equal(files[1], `${files[0]}.sha256`);
    for (const f of files) t.equal(statSync(join(cache, f)).mode & 0o022, 0, `${f} is writable by its owner alone`);
  }
});

t.test("--database starts against PostgreSQL", { skip: POSTGRES_MISSING }, async (t) => {
  const cluster = await privatePostgres(t);
  const srv = await startServer(t, { launch, dataDir: dataDir(), shards: 1, workers: 1, env, args: ["--database", cluster.url] });
  t.match(srv.stdout(), /applied migrations/, "the schema was migrated");
  t.equal((await srv.get("/v1/entities?q=bank")).status, 200, "it answers searches");
  t.equal((await srv.stop()) as number, 0, "stops cleanly");
});

t.test("without the pg package", async (t) => {
  const pgDir = join(install, "node_modules/pg");
  const away = join(top, "pg-away");
  chmodSync(join(install, "node_modules"), 0o755);
  renameSync(pgDir, away);
  t.teardown(() => renameSync(away, pgDir));

  const srv = await startServer(t, { launch, dataDir: dataDir(), shards: 1, workers: 1, env });
  t.equal((await srv.get("/v1/entities?q=bank")).status, 200, "a server without --database starts and answers");
  await srv.stop();

  const r = await runLeidex(
    [
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--source",
      "sample",
      "--data-dir",
      dataDir(),
      "--database",
      "postgres://leidex@127.0.0.1:1/leidex",
    ],
    60_000,
    launch,
    env,
  );
  t.equal(r.code, 1, "--database exits 1");
  const lines = r.stderr.trim().split("\n");
  t.equal(lines.length, 1, "with one line");
  t.match(lines[0], /^--database needs the package pg, which this installation lacks .*npm install pg$/, "naming the package and the fix");
  t.notMatch(r.stderr, /\n\s+at /, "no stack");
});
