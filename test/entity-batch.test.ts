// POST /v1/entities/batch: a row per input in request order with the single lookup's rules, the
// bad bodies (413 over 1,000, 400 naming the row, empty, not JSON, wrong type), the weight on the
// per-IP rate limit, and CORS for browser clients.

import t from "tap";
import { sampleModel, withBadCheckDigits, withCheckDigits } from "./helpers/fixture.js";
import { startServer } from "./helpers/server.js";

const sample = sampleModel();
const [a, b] = [sample[0].entity.lei, sample[1].entity.lei];
const absent = withCheckDigits("LEIDEXABSENT000000");
const mistyped = withBadCheckDigits("LEIDEXABSENT000001");

const post = (base: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${base}/v1/entities/batch`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

t.test("a row per input, in request order: found, not_found, invalid, duplicates and lower case", async (t) => {
  const server = await startServer(t);
  const leis = [b, "not-an-lei", a, absent, mistyped, b.toLowerCase(), b];
  const res = await post(server.base, { leis });
  t.equal(res.status, 200);
  const answer = (await res.json()) as { results: { lei: string; status: string; entity?: { lei: string }; error?: string }[] } & Record<
    string,
    number
  >;
  t.same(
    answer.results.map((r) => [r.lei, r.status]),
    [
      [b, "found"],
      ["not-an-lei", "invalid"],
      [a, "found"],
      [absent, "not_found"],
      [mistyped, "invalid"],
      [b.toLowerCase(), "found"],
      [b, "found"],
    ],
  );
  t.same([answer.found, answer.notFound, answer.invalid], [4, 1, 2], "the counts");
  const single = await server.json(`/v1/entities/${b}`);
  t.same(answer.results[0].entity, single, "a found row carries the single lookup's entity");
  t.same(answer.results[5].entity, single, "lower case finds it too");
  t.equal(answer.results[2].entity?.lei, a);
  t.match(answer.results[1].error, /^malformed LEI 'not-an-lei'/, "the single lookup's reason");
  t.match(answer.results[3].error, /^no entity with LEI/);
  t.match(answer.results[4].error, /fails the ISO 17442 check digits/);
  t.notOk("entity" in answer.results[3], "no entity where none is found");
});

t.test("bad bodies: 413 over 1,000 LEIs, 400 naming the row, empty, not JSON, other fields, wrong media type", async (t) => {
  const server = await startServer(t);
  const status = async (res: Response): Promise<[number, string]> => [res.status, ((await res.json()) as { error: string }).error];
  t.same(await status(await post(server.base, { leis: Array(1001).fill(a) })), [
    413,
    "a batch holds at most 1000 LEIs, this one 1001; split it",
  ]);
  t.same(await status(await post(server.base, { leis: [a, b, 42] })), [400, "invalid batch: leis[2] must be a string"]);
  t.same(await status(await post(server.base, { leis: [a, "x".repeat(101)] })), [
    400,
    "invalid batch: leis[1] is longer than 100 characters",
  ]);
  t.same(await status(await post(server.base, "")), [400, "Bad JSON."], "an empty body");
  t.same(await status(await post(server.base, "{leis:")), [400, "Bad JSON."]);
  t.same(await status(await post(server.base, { leis: [] })), [400, 'invalid batch: send {"leis": ["LEI", ...]} with 1 to 1000 LEIs']);
  t.same(
    await status(await post(server.base, [a])),
    [400, 'invalid batch: send {"leis": ["LEI", ...]} with 1 to 1000 LEIs'],
    "a bare array",
  );
  t.same(await status(await post(server.base, { leis: [a], page: 2 })), [
    400,
    "invalid batch: unknown field 'page'; send {\"leis\": [...]}",
  ]);
  const typed = await post(server.base, { leis: [a] }, { "content-type": "text/plain" });
  t.equal(typed.status, 415);
  const put = await fetch(`${server.base}/v1/entities/batch`, { method: "PUT", body: "{}" });
  t.equal(put.status, 405);
  t.equal(put.headers.get("allow"), "POST, OPTIONS");
  t.equal((await server.get(`/v1/entities/${a}`)).status, 200, "the server goes on serving");
});

t.test("a batch spends one rate-limit token per LEI; a refused body spends one", async (t) => {
  const server = await startServer(t, { rateLimit: 10, rateWindow: 3600 });
  const five = await post(server.base, { leis: [a, b, a, b, absent] });
  t.equal(five.status, 200);
  t.equal(five.headers.get("x-ratelimit-remaining"), "5", "10 tokens, 5 spent");
  const bad = await post(server.base, { leis: [1] });
  t.equal(bad.status, 400);
  t.equal(bad.headers.get("x-ratelimit-remaining"), "4", "a refused body costs one");
  const six = await post(server.base, { leis: [a, a, a, a, a, a] });
  t.equal(six.status, 429, "6 LEIs with 4 tokens left");
  t.ok(Number(six.headers.get("retry-after")) >= 1);
  t.match(((await six.json()) as { error: string }).error, /a batch counts one per item/);
  const one = await server.get(`/v1/entities/${a}`);
  t.equal(one.status, 200, "the refused batch spent only its first token: single lookups go on");
});

t.test("CORS: the preflight allows POST, the answer is readable by any origin", async (t) => {
  const server = await startServer(t);
  const preflight = await fetch(`${server.base}/v1/entities/batch`, {
    method: "OPTIONS",
    headers: { origin: "https://example.org", "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
  });
  t.equal(preflight.status, 204);
  t.match(preflight.headers.get("access-control-allow-methods") ?? "", /POST/);
  const res = await post(server.base, { leis: [a] }, { origin: "https://example.org" });
  t.equal(res.headers.get("access-control-allow-origin"), "*");
  const lookupPreflight = await fetch(`${server.base}/v1/entities/${a}`, { method: "OPTIONS" });
  t.equal(lookupPreflight.headers.get("access-control-allow-methods"), "GET, OPTIONS", "other paths still allow GET only");
});
