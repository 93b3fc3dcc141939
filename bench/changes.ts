// The change feed's cost at scale (docs/changes.md): what comparing a load with the live
// collection adds to the load, beside the load itself in the same run.
//
//   npm run bench:changes -- [--records N] [--seed S] [--every K]
//
// Generates (or reuses from bench/out/) a synthetic golden-copy CSV of N records, serves it, then
// reloads (SIGHUP) a copy with every K-th record's legal name changed (N / K changes found and
// stored), then the same copy again (nothing changes: the comparison's scan alone). Prints each
// load's time beside its comparison's, from the server's own log lines, and peak RSS.

import { copyFileSync, createReadStream, createWriteStream, existsSync, mkdtempSync, renameSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Args, isMain } from "./args.js";
import { generate, GENERATOR_VERSION } from "./generate.js";
import { readMemory, removeDirLater, runCli, startServer, startWatchdog } from "./proc.js";
import { table } from "./table.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = existsSync(path.resolve(HERE, "../package.json")) ? path.resolve(HERE, "..") : path.resolve(HERE, "../..");
const OUT = path.join(REPO, "bench", "out");

const LOADED = /loaded (\d+) records as \S+ in ([\d.]+) s/;
const CHANGES = /changes: (\d+) field change\(s\) against \S+ in ([\d.]+) s/;

interface LoadLine {
  readonly what: string;
  readonly loadSeconds: number;
  readonly changes: number | null;
  readonly changeSeconds: number | null;
  readonly peakRssMiB: number;
}

/** Copies `from` to `to`, putting a word before the legal name of every k-th data row. */
async function withChangedNames(from: string, to: string, every: number): Promise<number> {
  const out = createWriteStream(to);
  let row = 0,
    changed = 0;
  for await (const line of createInterface({ input: createReadStream(from), crlfDelay: Infinity })) {
    // the first `","` of a row ends its LEI: the legal name follows it
    const at = line.indexOf('","');
    const edit = row > 0 && row % every === 0 && at > 0;
    if (edit) changed++;
    if (!out.write(`${edit ? `${line.slice(0, at + 3)}Changed ${line.slice(at + 3)}` : line}\n`))
      await new Promise<void>((r) => out.once("drain", () => r()));
    row++;
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return changed;
}

async function main(): Promise<void> {
  const args = new Args(process.argv.slice(2));
  const records = args.int("records", 1_000_000);
  const seed = args.int("seed", 1);
  const every = args.int("every", 16);
  startWatchdog("bench:changes", 3 * 3600_000);
  const base = path.join(OUT, `golden-${records}-s${seed}-v${GENERATOR_VERSION}.csv`);
  if (!existsSync(base)) {
    console.error(`generating ${records.toLocaleString("en-US")} records into ${base}`);
    await generate({ records, seed, out: `${base}.part.csv` });
    renameSync(`${base}.part.csv`, base);
  }
  const work = mkdtempSync(path.join(os.tmpdir(), "leidex-changes-"));
  removeDirLater(work);
  const changedCsv = path.join(work, "changed.csv");
  const expected = await withChangedNames(base, changedCsv, every);
  const source = path.join(work, "corpus.csv");
  copyFileSync(base, source);

  const server = await startServer({
    command: process.execPath,
    args: [
      path.join(REPO, "dist/src/main.js"),
      "--source",
      source,
      "--data-dir",
      path.join(work, "data"),
      "--host",
      "127.0.0.1",
      "--port",
      "0",
    ],
    readyTimeoutMs: 3600_000,
  });
  const lines: string[] = [];
  for (const stream of [server.child.stdout!, server.child.stderr!]) createInterface({ input: stream }).on("line", (l) => lines.push(l));
  const results: LoadLine[] = [];
  const reload = async (what: string): Promise<void> => {
    const from = lines.length;
    let peak = 0;
    process.kill(server.pid, "SIGHUP");
    for (;;) {
      peak = Math.max(peak, readMemory(server.pid)?.rssBytes ?? 0);
      const seen = lines.slice(from);
      const loaded = seen.map((l) => LOADED.exec(l)).find((m) => m !== null);
      if (loaded) {
        const found = seen.map((l) => CHANGES.exec(l)).find((m) => m !== null);
        results.push({
          what,
          loadSeconds: Number(loaded[2]),
          changes: found ? Number(found[1]) : null,
          changeSeconds: found ? Number(found[2]) : null,
          peakRssMiB: Math.round(peak / 1048576),
        });
        return;
      }
      if (/load failed/.test(seen.join("\n"))) throw new Error(`${what}: ${server.tail()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  try {
    renameSync(changedCsv, source);
    await reload(`every ${every}th legal name changed (${expected.toLocaleString("en-US")} records)`);
    await reload("the same file again (nothing changed)");
  } finally {
    await server.stop();
  }
  console.log(
    `\n${records.toLocaleString("en-US")} synthetic records (generate.ts, seed ${seed}); each reload's own time is the baseline of its comparison\n`,
  );
  console.log(
    table([
      ["load", "load s", "changes found", "comparison s", "share of the load", "peak RSS MiB"],
      ...results.map((r) => [
        r.what,
        r.loadSeconds.toFixed(1),
        r.changes === null ? "not compared" : r.changes.toLocaleString("en-US"),
        r.changeSeconds === null ? "–" : r.changeSeconds.toFixed(1),
        r.changeSeconds === null ? "–" : `${((100 * r.changeSeconds) / r.loadSeconds).toFixed(0)} %`,
        String(r.peakRssMiB),
      ]),
    ]),
  );
}

if (isMain(import.meta.url)) runCli("bench:changes", main);
