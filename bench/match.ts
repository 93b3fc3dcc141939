// Bulk partners' bench, on the real sample (6,147 GLEIF records): how often POST /v1/match is
// right, beside a plain top-1 search (GET /v1/entities?q=<name>&limit=1) from the same run, and
// how fast both go; then batch lookups (POST /v1/entities/batch, 100 LEIs each) against single
// lookups, in LEIs per second. The rows are built from the sample's own names: as registered,
// with a typo in the longest distinctive word, without the legal form, each with and without the
// country. `npm run bench:match [-- --registry N]`; `npm run bench` runs it last. With
// --registry N the server holds the registry-shaped corpus of N records (bench:registry's: the
// real records among near-twin distractors) and the rows are built from its real records.
// --server PATH runs another build's dist/src/main.js on the same rows (a before-and-after).

import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Agent, request } from "undici";
import { analyseName, withoutLegalForms } from "../src/match/name-similarity.js";
import { LegalFormWords } from "../src/match/legal-form-words.js";
import { defaultSamplePath } from "./csv.js";
import { Rng } from "./prng.js";
import { ensureRegistryZip } from "./registry-shaped.js";
import { freePort, removeDirLater, runCli, startServer } from "./proc.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, HERE.includes(`${path.sep}dist${path.sep}`) ? "../.." : "..");
const SERVER_MAIN = path.join(REPO, "dist", "src", "main.js");
const OUT = path.join(REPO, "bench", "out");
const PICKED = 500;
const MATCH_BATCH = 100;
const CONCURRENCY = 8;

interface Entity {
  lei: string;
  legalName: string | null;
  country: string | null;
}
interface Row {
  kind: string;
  name: string;
  country?: string;
  lei: string;
}
interface MatchResult {
  verdict: string;
  candidates: { lei: string; score: number }[];
}

const agent = new Agent({ connections: CONCURRENCY, pipelining: 1 });

async function call(base: string, method: "GET" | "POST", url: string, body?: unknown): Promise<unknown> {
  const res = await request(`${base}${url}`, {
    method,
    dispatcher: agent,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${method} ${url}: ${res.statusCode} ${text.slice(0, 200)}`);
  return url.includes("/export") ? text : JSON.parse(text);
}

/** Runs `work` on every item with CONCURRENCY in flight; the results in order. */
async function pooled<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i]);
      }
    }),
  );
  return out;
}

/** The name with two neighbouring letters of its longest distinctive word swapped, or null. */
const FORMS = LegalFormWords.bundled();

function withTypo(name: string, country: string | null, rng: Rng): string | null {
  const words = name.split(" ");
  const core = new Set(analyseName(name, FORMS.of(country)).core);
  let at = -1;
  words.forEach((w, i) => {
    const folded = w.toLowerCase();
    if (w.length >= 6 && /^\p{L}+$/u.test(w) && core.has(folded) && (at < 0 || w.length > words[at].length)) at = i;
  });
  if (at < 0) return null;
  const w = words[at];
  const k = 1 + rng.int(w.length - 3);
  if (w[k] === w[k + 1]) return null;
  words[at] = w.slice(0, k) + w[k + 1] + w[k] + w.slice(k + 2);
  return words.join(" ");
}

function rowsOf(entities: Entity[], seed: number): Row[] {
  const rng = Rng.at(seed, 7, 0);
  const usable = entities.filter((e) => e.legalName !== null && analyseName(e.legalName, FORMS.of(e.country)).core.length > 0);
  const picked: Entity[] = [];
  const taken = new Set<number>();
  while (picked.length < Math.min(PICKED, usable.length)) {
    const i = rng.int(usable.length);
    if (!taken.has(i)) {
      taken.add(i);
      picked.push(usable[i]);
    }
  }
  const rows: Row[] = [];
  for (const e of picked) {
    const name = e.legalName!;
    const variants: [string, string | null][] = [
      ["as registered", name],
      ["with a typo", withTypo(name, e.country, rng)],
      ["without the legal form", withoutLegalForms(name, FORMS.of(e.country))],
    ];
    for (const [kind, variant] of variants) {
      if (variant === null) continue;
      rows.push({ kind, name: variant, lei: e.lei });
      if (e.country) rows.push({ kind: `${kind}, country given`, name: variant, country: e.country, lei: e.lei });
    }
  }
  return rows;
}

const pct = (n: number, of: number): string => `${((100 * n) / Math.max(1, of)).toFixed(1)} %`;

/** The real sample's LEIs: the first field of its record lines. */
function sampleLeis(): string[] {
  return [...readFileSync(defaultSamplePath(), "utf8").matchAll(/^"([0-9A-Z]{20})",/gm)].map((m) => m[1]);
}

/** `registry`: records of the registry-shaped corpus to serve, or 0 for the bundled sample alone. */
export async function runMatchBench(seed = 1, registry = 0, serverMain = SERVER_MAIN): Promise<void> {
  const source = registry > 0 ? (await ensureRegistryZip(OUT, registry, seed, (l) => console.log(l))).zip : "sample";
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "leidex-bench-match-"));
  const cleanup = removeDirLater(dataDir);
  const port = await freePort();
  const server = await startServer({
    command: process.execPath,
    args: [serverMain, "--host", "127.0.0.1", "--port", String(port), "--source", source, "--data-dir", dataDir, "--rate-limit", "0"],
    readyTimeoutMs: 600_000,
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    const leis = sampleLeis();
    const entities: Entity[] = [];
    for (let i = 0; i < leis.length; i += 1000) {
      const answer = (await call(base, "POST", "/v1/entities/batch", { leis: leis.slice(i, i + 1000) })) as {
        results: { entity?: Entity }[];
      };
      for (const r of answer.results) if (r.entity) entities.push(r.entity);
    }
    const rows = rowsOf(entities, seed);
    const corpus = registry > 0 ? `the registry-shaped corpus of ${registry.toLocaleString("en-US")} records` : "the real sample alone";
    console.log(`\nEntity matching on ${corpus}: ${rows.length} rows from ${PICKED} real registered names (seed ${seed})`);

    let started = performance.now();
    const batches: Row[][] = [];
    for (let i = 0; i < rows.length; i += MATCH_BATCH) batches.push(rows.slice(i, i + MATCH_BATCH));
    const answers = (
      await pooled(batches, async (batch) => {
        const body = { rows: batch.map((r) => ({ name: r.name, ...(r.country ? { country: r.country } : {}) })), limit: 3 };
        return ((await call(base, "POST", "/v1/match", body)) as { results: MatchResult[] }).results;
      })
    ).flat();
    const matchSeconds = (performance.now() - started) / 1000;

    started = performance.now();
    const baseline = await pooled(rows, async (r) => {
      const page = (await call(base, "GET", `/v1/entities?limit=1&q=${encodeURIComponent(r.name)}`)) as { results: { lei: string }[] };
      return page.results[0]?.lei ?? null;
    });
    const searchSeconds = (performance.now() - started) / 1000;

    const kinds = [...new Set(rows.map((r) => r.kind))];
    console.log(
      "| rows | n | search top-1 right | match top-1 right | verdict match, right | verdict match, wrong | ambiguous | possible | none |",
    );
    console.log("|---|---|---|---|---|---|---|---|---|");
    for (const kind of [...kinds, "all"]) {
      const idx = rows.map((r, i) => (kind === "all" || r.kind === kind ? i : -1)).filter((i) => i >= 0);
      const right = (i: number): boolean => answers[i].candidates[0]?.lei === rows[i].lei;
      const verdict = (v: string): number => idx.filter((i) => answers[i].verdict === v).length;
      console.log(
        `| ${kind} | ${idx.length} | ${pct(idx.filter((i) => baseline[i] === rows[i].lei).length, idx.length)} | ${pct(idx.filter(right).length, idx.length)} | ` +
          `${pct(idx.filter((i) => answers[i].verdict === "match" && right(i)).length, idx.length)} | ` +
          `${pct(idx.filter((i) => answers[i].verdict === "match" && !right(i)).length, idx.length)} | ` +
          `${pct(verdict("ambiguous"), idx.length)} | ${pct(verdict("possible"), idx.length)} | ${pct(verdict("none"), idx.length)} |`,
      );
    }
    console.log(
      `match: ${(rows.length / matchSeconds).toFixed(0)} rows/s (batches of ${MATCH_BATCH}, ${CONCURRENCY} in flight); ` +
        `baseline top-1 search: ${(rows.length / searchSeconds).toFixed(0)} queries/s (${CONCURRENCY} in flight)`,
    );

    const lookups = Array.from({ length: 20_000 }, (_, i) => entities[(i * 7919) % entities.length].lei);
    started = performance.now();
    await pooled(lookups, (lei) => call(base, "GET", `/v1/entities/${lei}`));
    const singleSeconds = (performance.now() - started) / 1000;
    const lookupBatches: string[][] = [];
    for (let i = 0; i < lookups.length; i += 100) lookupBatches.push(lookups.slice(i, i + 100));
    started = performance.now();
    await pooled(lookupBatches, (batch) => call(base, "POST", "/v1/entities/batch", { leis: batch }));
    const batchSeconds = (performance.now() - started) / 1000;
    const singleRate = lookups.length / singleSeconds;
    const batchRate = lookups.length / batchSeconds;
    console.log(
      `lookups: ${singleRate.toFixed(0)} LEIs/s one per request; ${batchRate.toFixed(0)} LEIs/s in batches of 100 ` +
        `(${(batchRate / singleRate).toFixed(1)}× single, same client, ${CONCURRENCY} requests in flight)`,
    );
  } finally {
    await server.stop();
    cleanup();
    await agent.close();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const flag = (name: string, fallback: number): number => {
    const at = process.argv.indexOf(`--${name}`);
    return at > 0 ? Number(process.argv[at + 1]) : fallback;
  };
  const server = process.argv.indexOf("--server");
  runCli("bench:match", () =>
    runMatchBench(flag("seed", 1), flag("registry", 0), server > 0 ? path.resolve(process.argv[server + 1]) : SERVER_MAIN),
  );
}
