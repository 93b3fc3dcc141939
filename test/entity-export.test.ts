// GET /v1/entities/export: with q, the search's matches in the order paging gives them; with
// filters only, every match in LEI order; the bad parameters; the weight on the rate limit.

import t from "tap";
import { sampleModel } from "./helpers/fixture.js";
import { startServer } from "./helpers/server.js";

const sample = sampleModel();

async function exportLeis(base: string, query: string): Promise<{ status: number; leis: string[]; headers: Headers }> {
  const res = await fetch(`${base}/v1/entities/export${query}`);
  const text = await res.text();
  if (res.status !== 200) return { status: res.status, leis: [], headers: res.headers };
  t.match(res.headers.get("content-type") ?? "", /application\/x-ndjson/);
  const lines = text.split("\n").filter(Boolean);
  return { status: res.status, leis: lines.map((l) => (JSON.parse(l) as { lei: string }).lei), headers: res.headers };
}

t.test("with q: the same entities in the same order as paging through the search", async (t) => {
  const server = await startServer(t, { rateLimit: 0 });
  for (const query of ["q=bank", "q=gmbh&country=DE", "q=fund&status=ACTIVE", "q=holding"]) {
    const paged: string[] = [];
    let found = 0;
    for (let page = 1; page <= 10; page++) {
      const body = await server.json(`/v1/entities?${query}&limit=100&page=${page}`);
      found = body.found;
      paged.push(...body.results.map((r: { lei: string }) => r.lei));
      if (page * 100 >= found) break;
    }
    const exported = await exportLeis(server.base, `?${query}`);
    t.equal(exported.status, 200, query);
    t.ok(found > 0, `${query}: matches something`);
    t.same(exported.leis.slice(0, paged.length), paged, `${query}: the first ${paged.length} as paged`);
    t.equal(exported.leis.length, Math.min(found, 10_000), `${query}: every match (found ${found})`);
  }
});

t.test("filters only: every match in LEI order; no parameter at all: the whole collection", async (t) => {
  const server = await startServer(t, { rateLimit: 0, shards: 3 });
  const all = await exportLeis(server.base, "");
  t.equal(all.leis.length, sample.length, "every entity");
  t.same(all.leis, [...all.leis].sort(), "in LEI order across the 3 slices");
  t.same(new Set(all.leis), new Set(sample.map((r) => r.entity.lei)), "each once");

  const de = await exportLeis(server.base, "?country=DE&status=ACTIVE");
  const expected = sample
    .filter((r) => r.entity.country === "DE" && r.entity.entityStatus === "ACTIVE")
    .map((r) => r.entity.lei)
    .sort();
  t.ok(expected.length > 10);
  t.same(de.leis, expected, "the filtered entities, in LEI order");
  const none = await exportLeis(server.base, "?country=ZZ");
  t.same([none.status, none.leis], [200, []], "nothing matches: an empty stream");
});

t.test("bad parameters are a 400 before anything streams; the lookup route is not confused", async (t) => {
  const server = await startServer(t, { rateLimit: 0 });
  for (const [query, says] of [
    ["?q=bank&page=2", /an export takes no 'page'/],
    ["?limit=10", /an export takes no 'limit'/],
    ["?facets=country", /an export takes no 'facets'/],
    ["?country=Germany", /invalid value for 'country'/],
    ["?sort=name", /unknown parameter 'sort'/],
    ["?q=%zz", /malformed query string/],
  ] as const) {
    const got = await server.get(`/v1/entities/export${query}`);
    t.equal(got.status, 400, query);
    t.match(got.body.error, says, query);
  }
  const lookup = await server.get(`/v1/entities/${sample[0].entity.lei}`);
  t.equal(lookup.status, 200, "/v1/entities/{lei} still looks up");
});

t.test("an export weighs 100 requests on the per-IP rate limit", async (t) => {
  const server = await startServer(t, { rateLimit: 150, rateWindow: 3600 });
  const first = await exportLeis(server.base, "?country=DE");
  t.equal(first.status, 200);
  t.equal(first.headers.get("x-ratelimit-remaining"), "50", "150 tokens, 100 spent");
  const second = await fetch(`${server.base}/v1/entities/export?country=DE`);
  t.equal(second.status, 429, "50 tokens left: not enough for another");
  t.ok(Number(second.headers.get("retry-after")) >= 1);
  t.equal((await server.get("/v1/stats")).status, 200, "single requests go on");
});
