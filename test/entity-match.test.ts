// POST /v1/match on the real sample: registered names, names without their legal form, typos,
// the country lifting or lowering a candidate, a given LEI, nonsense; the explanations; the bad
// bodies (413, 400 naming the row); the weight on the rate limit.

import t from "tap";
import { analyseName as analyseIn, type AnalysedName } from "../src/match/name-similarity.js";
import { LegalFormWords } from "../src/match/legal-form-words.js";
import { sampleModel, type Entity } from "./helpers/fixture.js";
import { startServer } from "./helpers/server.js";

const entities = sampleModel().map((r) => r.entity);
const forms = LegalFormWords.bundled();
/** The entity's legal name with its country of formation's legal forms (the bundled ELF list) apart. */
const analyseName = (e: Entity): AnalysedName => analyseIn(e.legalName ?? "", forms.of(e.jurisdiction ?? e.country));
const folded = (e: Entity): string => analyseName(e).core.join(" ");
const coreCount = new Map<string, number>();
for (const e of entities) if (e.legalName) coreCount.set(folded(e), (coreCount.get(folded(e)) ?? 0) + 1);
/** Sample entities whose distinctive words no other sample name shares, with a legal form and a country. */
const distinct = entities.filter(
  (e) => e.legalName && e.country && coreCount.get(folded(e)) === 1 && analyseName(e).forms.length > 0 && analyseName(e).core.length >= 2,
);

interface Answer {
  results: {
    verdict: string;
    candidates: { lei: string; name: string; score: number; explanation: Record<string, any>; entity: { lei: string } }[];
  }[];
}

t.test("rows answered in order: names as registered, without the legal form, with a country that agrees or not", async (t) => {
  t.ok(distinct.length >= 20, `${distinct.length} sample names to try`);
  const server = await startServer(t, { rateLimit: 0 });
  const picked = distinct.slice(0, 20);
  const rows = picked.flatMap((e) => [
    { name: e.legalName! },
    { name: analyseName(e).core.join(" ") },
    { name: e.legalName!, country: e.country! },
    { name: e.legalName!, country: e.country === "ZZ" ? "YY" : "ZZ" },
  ]);
  const res = await fetch(`${server.base}/v1/match`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ rows }),
  });
  t.equal(res.status, 200);
  const { results } = (await res.json()) as Answer;
  t.equal(results.length, rows.length, "one result per row");
  picked.forEach((e, i) => {
    const [asIs, bare, agrees, differs] = results.slice(4 * i, 4 * i + 4);
    t.equal(asIs.candidates[0]?.lei, e.lei, `${e.legalName}: the right entity first`);
    t.equal(asIs.verdict, "match", `${e.legalName}: a match`);
    t.same(asIs.candidates[0].explanation.name, { matched: "legalName", similarity: 1 });
    t.same(asIs.candidates[0].entity.lei, e.lei, "the entity comes with it");
    t.equal(bare.candidates[0]?.lei, e.lei, `${e.legalName} without its legal form: still first`);
    t.equal(agrees.candidates[0].explanation.country, "agrees");
    t.ok(agrees.candidates[0].score >= asIs.candidates[0].score, "a country that agrees does not lower it");
    const wrong = differs.candidates.find((c) => c.lei === e.lei)!;
    t.equal(wrong.explanation.country, "differs");
    t.ok(wrong.score < asIs.candidates[0].score, "a country that differs lowers it");
    t.not(differs.verdict, "match", "and it is no longer a sure match");
  });
});

t.test("a typo, a given LEI, nonsense, limit", async (t) => {
  const server = await startServer(t, { rateLimit: 0 });
  const e = distinct.find((d) => analyseName(d).core.some((w) => w.length >= 7))!;
  const long = e.legalName!.split(" ").find((w) => w.length >= 7 && /^\p{L}+$/u.test(w))!;
  const typo = e.legalName!.replace(long, long.slice(0, 2) + long[3] + long[2] + long.slice(4));
  const rows = [
    { name: typo },
    { name: "Zzyzx Qwv Plonk" },
    { name: "anything at all", lei: e.lei },
    { name: e.legalName!, lei: "NOT-AN-LEI" },
  ];
  const res = await fetch(`${server.base}/v1/match`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ rows, limit: 1 }),
  });
  const { results } = (await res.json()) as Answer;
  t.equal(results[0].candidates[0]?.lei, e.lei, `the typo '${typo}' finds ${e.legalName}`);
  t.ok(["match", "possible"].includes(results[0].verdict), `a typo: ${results[0].verdict}`);
  t.equal(results[1].verdict, "none", "nonsense matches nothing");
  t.equal(results[2].candidates[0].lei, e.lei, "a given LEI brings its entity");
  t.equal(results[2].candidates[0].explanation.lei, "agrees");
  t.ok(results[2].candidates[0].score >= 0.95);
  t.equal(results[3].candidates[0].explanation.lei, "differs", "an LEI that is not the candidate's");
  t.ok(
    results.every((r) => r.candidates.length <= 1),
    "limit 1: one candidate a row",
  );
});

t.test("bad bodies: 413 over 1,000 rows, 400 naming the row, empty, unknown fields", async (t) => {
  const server = await startServer(t, { rateLimit: 0 });
  const post = async (body: string): Promise<[number, string]> => {
    const res = await fetch(`${server.base}/v1/match`, { method: "POST", headers: { "content-type": "application/json" }, body });
    return [res.status, ((await res.json()) as { error: string }).error];
  };
  t.same(await post(JSON.stringify({ rows: Array(1001).fill({ name: "x" }) })), [
    413,
    "a match request holds at most 1000 rows, this one 1001; split it",
  ]);
  t.same(await post(JSON.stringify({ rows: [{ name: "a" }, { name: "b" }, { nme: "c" }] })), [
    400,
    "invalid match request: /rows/2 must have required property 'name'",
  ]);
  t.same(await post(JSON.stringify({ rows: [{ name: "a", country: "Germany" }] })), [
    400,
    'invalid match request: /rows/0/country must match pattern "^[A-Za-z]{2}$"',
  ]);
  t.same(await post(JSON.stringify({ rows: [{ name: "a", vat: "1" }] })), [400, "invalid match request: /rows/0 has unknown field 'vat'"]);
  t.same(await post(""), [400, "Bad JSON."]);
  t.same(await post(JSON.stringify({ rows: [] })), [400, "invalid match request: /rows must NOT have fewer than 1 items"]);
  const get = await fetch(`${server.base}/v1/match`);
  t.equal(get.status, 405);
  t.equal(get.headers.get("allow"), "POST, OPTIONS");
});

t.test("a match request weighs its rows on the rate limit", async (t) => {
  const server = await startServer(t, { rateLimit: 10, rateWindow: 3600 });
  const post = (n: number): Promise<Response> =>
    fetch(`${server.base}/v1/match`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ rows: Array(n).fill({ name: "bank" }) }),
    });
  const six = await post(6);
  t.equal(six.status, 200);
  t.equal(six.headers.get("x-ratelimit-remaining"), "4");
  t.equal((await post(5)).status, 429, "5 rows with 4 tokens left");
});
