// 50 clients at once, a mix of searches (text, typos, filters, facets, paging) and lookups
// (found, absent, malformed): every answer must be complete and identical to the answer the
// same request gets when made alone.

import t from "tap";
import { request as httpRequest, Agent } from "node:http";
import { readSample, seededRandom, shuffle, withCheckDigits } from "./helpers/fixture.js";
import { pMap, qs, startServer } from "./helpers/server.js";

// Without the answer cache, every search is rendered afresh, so concurrent searches meet in the
// front's shared scratch (engine/scratch-bytes.ts), as concurrent lookups do: an answer sent
// one step late would carry another's bytes.
const srv = await startServer(t, { rateLimit: 0, shards: 2, args: ["--cache-mb", "0"] });

const { header, rows } = readSample();
const LEI = header.indexOf("LEI"),
  NAME = header.indexOf("Entity.LegalName");
const rnd = seededRandom(50);
const picks = shuffle(rows, rnd).slice(0, 200);

const paths: string[] = [];
for (const [i, r] of picks.entries()) {
  const name = r[NAME];
  const words = name.split(/\s+/).filter((w) => /\p{L}{3,}/u.test(w));
  switch (i % 8) {
    case 0:
      paths.push(`/v1/entities/${r[LEI]}`);
      break;
    case 1:
      paths.push(`/v1/entities/${r[LEI].toLowerCase()}`);
      break;
    case 2:
      paths.push(`/v1/entities${qs({ q: name })}`);
      break;
    case 3:
      paths.push(`/v1/entities${qs({ q: words[0] ?? name, limit: 50, facets: "country,status,registrationStatus" })}`);
      break;
    case 4:
      paths.push(`/v1/entities${qs({ q: (words[0] ?? "bank").slice(0, 4), page: 2, limit: 10 })}`);
      break;
    case 5:
      paths.push(`/v1/entities${qs({ q: words.slice(0, 2).join(" ") || name, country: "US,GB,DE,IT,IN,ES", facets: "jurisdiction" })}`);
      break;
    case 6:
      paths.push(`/v1/entities${qs({ q: (words[words.length - 1] ?? name) + "x", fields: "name" })}`);
      break;
    default:
      paths.push(`/v1/entities${qs({ registrationStatus: "LAPSED", page: 1 + (i % 5), limit: 20 })}`);
  }
}
for (let i = 0; i < 20; i++) paths.push(`/v1/entities/${withCheckDigits(`LEIDEXC0NC${String(i).padStart(8, "0")}`)}`); // 404
for (let i = 0; i < 20; i++) paths.push(`/v1/entities/NOTANLEI${i}`); // 400
for (const f of ["country", "jurisdiction", "status", "registrationStatus", "category"]) paths.push(`/v1/facets/${f}`, `/v1/facets/${f}`);
for (let i = 0; i < 20; i++) paths.push(`/v1/entities?page=${i}&limit=abc`); // 400
paths.push("/v1/stats", "/v1/stats", "/health", "/health/ready");

interface Answer {
  status: number;
  body: string;
}
/** The body with the timing field (which legitimately varies) taken out. */
const normal = (text: string): string => text.replace(/"searchTimeMs":\d+/, '"searchTimeMs":0').replace(/"ingestSeconds":[\d.]+/, "");

const agent = new Agent({ keepAlive: true, maxSockets: 64 });
t.teardown(() => agent.destroy());
function fetchOne(path: string): Promise<Answer> {
  return new Promise((res, rej) => {
    const req = httpRequest({ host: "127.0.0.1", port: srv.port, path, agent }, (r) => {
      const chunks: Buffer[] = [];
      r.on("data", (c: Buffer) => chunks.push(c));
      r.on("end", () => {
        const body = Buffer.concat(chunks);
        const len = Number(r.headers["content-length"]);
        if (Number.isFinite(len) && len !== body.length) rej(new Error(`${path}: ${body.length} bytes, Content-Length ${len}`));
        res({ status: r.statusCode ?? 0, body: body.toString("utf8") });
      });
      r.on("error", rej);
    });
    req.on("error", rej);
    req.end();
  });
}

t.test(`${paths.length} requests: sequential answers are the reference`, async (t) => {
  t.ok(paths.length >= 250, "a few hundred requests");
  const reference = new Map<string, Answer>();
  for (const p of paths) if (!reference.has(p)) reference.set(p, await fetchOne(p));
  const statuses = new Set([...reference.values()].map((a) => a.status));
  t.same([...statuses].sort(), [200, 400, 404], "the mix holds 200s, 400s and 404s");
  for (const [p, a] of reference) t.doesNotThrow(() => JSON.parse(a.body), `${p.slice(0, 50)}: JSON`);

  for (const round of [1, 2]) {
    const order = shuffle(paths, seededRandom(round));
    const started = Date.now();
    const answers = await pMap(order, 50, (p) => fetchOne(p));
    const ms = Date.now() - started;
    let same = 0;
    const diffs: string[] = [];
    order.forEach((p, i) => {
      const ref = reference.get(p)!;
      const got = answers[i];
      if (got.status === ref.status && normal(got.body) === normal(ref.body)) same++;
      else diffs.push(`${p}: ${got.status} ${got.body.slice(0, 80)} vs ${ref.status} ${ref.body.slice(0, 80)}`);
    });
    t.equal(same, order.length, `round ${round}: ${order.length} answers with 50 clients equal the sequential ones (${ms} ms)`);
    if (diffs.length) t.comment(diffs.slice(0, 5).join("\n"));
  }
});

t.test("50 fresh connections at once, each with one request", async (t) => {
  const p = `/v1/entities${qs({ q: "bank", limit: 100, facets: "country" })}`;
  const ref = await fetchOne(p);
  const answers = await Promise.all(
    Array.from(
      { length: 50 },
      () =>
        new Promise<Answer>((res, rej) => {
          const req = httpRequest({ host: "127.0.0.1", port: srv.port, path: p, agent: false }, (r) => {
            const chunks: Buffer[] = [];
            r.on("data", (c: Buffer) => chunks.push(c));
            r.on("end", () => res({ status: r.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
          });
          req.on("error", rej);
          req.end();
        }),
    ),
  );
  t.equal(answers.filter((a) => a.status === 200 && normal(a.body) === normal(ref.body)).length, 50, "all 50 complete and identical");
  t.equal(JSON.parse(ref.body).results.length, 100, "and each is a full page of 100");
});
