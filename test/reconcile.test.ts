// /reconcile: every answer validated against the published JSON Schemas of the Reconciliation
// Service API 0.2 (test/fixtures/reconciliation-0.2/): the manifest, result batches for
// queries sent as a form (as OpenRefine does), a query parameter and JSON, properties, preview
// and suggest; CORS; the bad requests.

import t from "tap";
import { Ajv } from "ajv";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sampleModel } from "./helpers/fixture.js";
import { ROOT, startServer } from "./helpers/server.js";

const SCHEMAS = join(ROOT, "test/fixtures/reconciliation-0.2");
const schema = (name: string): Record<string, unknown> => {
  const s = JSON.parse(readFileSync(join(SCHEMAS, name), "utf8")) as Record<string, unknown>;
  delete s.$schema; // "http://json-schema.org/schema#" names no draft ajv knows; the keywords are draft-07's
  return s;
};
const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addSchema(schema("type.json"));
const manifestSchema = schema("manifest.json");
delete (manifestSchema.properties as Record<string, unknown>).authentication; // refers to Swagger 2's schema, not published here
const validManifest = ajv.compile(manifestSchema);
const validResults = ajv.compile(schema("reconciliation-result-batch.json"));
const validQueries = ajv.compile(schema("reconciliation-query-batch.json"));
const validSuggest = ajv.compile(schema("suggest-entities-response.json"));

const entities = sampleModel().map((r) => r.entity);
const known = entities
  .filter((e) => e.legalName && e.country && entities.filter((o) => o.legalName === e.legalName).length === 1)
  .slice(0, 5);

type Results = Record<
  string,
  { result: { id: string; name: string; score: number; match: boolean; features: { id: string; value: unknown }[] }[] }
>;

t.test("the manifest, and result batches as a form, a query parameter and JSON, all valid against the published schemas", async (t) => {
  const server = await startServer(t, { rateLimit: 0 });
  const manifest = await server.get("/reconcile");
  t.equal(manifest.status, 200);
  t.ok(validManifest(manifest.body), `the manifest is valid: ${ajv.errorsText(validManifest.errors)}`);
  t.same(manifest.body.versions, ["0.2"]);
  t.equal(manifest.headers.get("access-control-allow-origin"), "*", "CORS for browser clients");
  t.match(manifest.body.preview.url, /\/reconcile\/preview\?id=\{\{id\}\}$/);

  const queries: Record<string, object> = {};
  known.forEach((e, i) => (queries[`q${i}`] = { query: e.legalName, type: "LegalEntity", limit: 3 }));
  queries.withCountry = { query: known[0].legalName!, properties: [{ pid: "country", v: known[0].country }] };
  t.ok(validQueries(queries), "the queries sent are a valid batch");

  const form = await fetch(`${server.base}/reconcile`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ queries: JSON.stringify(queries) }).toString(),
  });
  t.equal(form.status, 200, "a form, as OpenRefine sends it");
  const results = (await form.json()) as Results;
  t.ok(validResults(results), `the results are valid: ${ajv.errorsText(validResults.errors)}`);
  known.forEach((e, i) => {
    const first = results[`q${i}`].result[0];
    t.equal(first.id, e.lei, `${e.legalName}: its LEI first`);
    t.equal(first.match, true, "a sure match");
    t.equal(first.score, 100);
    t.ok(results[`q${i}`].result.length <= 3, "the query's limit");
  });
  t.same(results.withCountry.result[0].features.find((f) => f.id === "country_agrees")?.value, true, "the country property compared");

  const viaQuery = await server.get(`/reconcile?queries=${encodeURIComponent(JSON.stringify({ a: { query: known[1].legalName } }))}`);
  t.ok(validResults(viaQuery.body));
  t.equal(viaQuery.body.a.result[0].id, known[1].lei, "GET with ?queries=");
  const viaJson = await fetch(`${server.base}/reconcile`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ queries: { b: { query: known[2].legalName } } }),
  });
  t.equal(((await viaJson.json()) as Results).b.result[0].id, known[2].lei, "a JSON body");
});

t.test("preview and suggest", async (t) => {
  const server = await startServer(t, { rateLimit: 0 });
  const e = known[0];
  const preview = await server.get(`/reconcile/preview?id=${e.lei}`);
  t.equal(preview.status, 200);
  t.match(preview.headers.get("content-type") ?? "", /text\/html/);
  t.match(preview.text, e.lei);
  t.notMatch(preview.text, /<script/i);
  t.equal((await server.get("/reconcile/preview?id=529900AAAAAAAAAAAA00")).status >= 400, true, "an LEI not in the data");
  t.equal((await server.get("/reconcile/preview")).status, 400);

  const prefix = e.legalName!.split(" ")[0];
  const suggest = await server.get(`/reconcile/suggest/entity?prefix=${encodeURIComponent(prefix)}`);
  t.equal(suggest.status, 200);
  t.ok(validSuggest(suggest.body), `suggest is valid: ${ajv.errorsText(validSuggest.errors)}`);
  t.ok(suggest.body.result.length > 0 && suggest.body.result.length <= 10);
  t.equal((await server.get("/reconcile/suggest/entity")).status, 400);
});

t.test("bad requests: not JSON, a query without text, too many, another media type", async (t) => {
  const server = await startServer(t, { rateLimit: 0 });
  const post = (body: string, type = "application/x-www-form-urlencoded"): Promise<Response> =>
    fetch(`${server.base}/reconcile`, { method: "POST", headers: { "content-type": type }, body });
  const notJson = await post("queries=%7Bnope");
  t.equal(notJson.status, 400);
  t.match(((await notJson.json()) as { error: string }).error, /JSON object of queries/);
  const noText = await post(`queries=${encodeURIComponent(JSON.stringify({ q: { limit: 3 } }))}`);
  t.equal(noText.status, 400);
  t.match(((await noText.json()) as { error: string }).error, /required property 'query'/);
  const many: Record<string, object> = {};
  for (let i = 0; i < 1001; i++) many[`q${i}`] = { query: "bank" };
  t.equal((await post(JSON.stringify(many), "application/json")).status, 413);
  t.equal((await post("queries={}", "text/plain")).status, 415);
  t.equal((await server.get("/v1/stats")).status, 200, "the server goes on");
});
