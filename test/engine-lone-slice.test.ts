// A collection of one slice answers a search in one call: the slice's facts are the plan's, so it
// runs the typo rounds the front would plan (engine/slice-answer.ts settle), and the full round
// drops words in the same evaluation that finds the words together match nothing. The answer
// must be the one the front gets asking round by round, for every kind of query. Within a work
// budget (a front thread answering inline) the slice guesses as among several, and the front
// plans on.

import t from "tap";
import { readSample, seededRandom, withCheckDigits } from "./helpers/fixture.js";
import { builtSlice, dist } from "./helpers/in-process-engine.js";
import { tempDir } from "./helpers/server.js";
import type { ShardRequests } from "../src/engine/collection-view.js";
import type { HitSource, SearchAnswer, ShardReply, ShardRequest } from "../src/engine/protocol.js";
import type { SearchRequest } from "../src/engine/planner.js";

const { answerRequest, answerSearch } = (await import(dist("engine/slice-answer.js"))) as typeof import("../src/engine/slice-answer.js");
const { roundQuery, typoRounds } = (await import(dist("engine/search-rounds.js"))) as typeof import("../src/engine/search-rounds.js");
const { CollectionView } = (await import(dist("engine/collection-view.js"))) as typeof import("../src/engine/collection-view.js");
const codec = (await import(dist("engine/shard-codec.js"))) as typeof import("../src/engine/shard-codec.js");

const { header, rows: sample } = readSample();
const NAME = header.indexOf("Entity.LegalName");
const LEI = header.indexOf("LEI");
// Two names two typos apart: a query one typo from the first and two from the second is
// answered by the one-typo round (the first only), never by the full round (both).
const NEAR = "Kalmorvintage Trading";
const FAR = "Kalmorvintbgy Trading";
const rows = [
  ...sample,
  ...[NEAR, FAR].map((name, i) => {
    const row = [...sample[i]];
    row[LEI] = withCheckDigits(`LEIDEXLONE${String(i).padStart(8, "0")}`);
    row[NAME] = name;
    return row;
  }),
];
const dir = tempDir(t, "leidex-lone-");
const slice = await builtSlice(dir, "lone", header, rows);
t.teardown(() => slice.close());

const rnd = seededRandom(20261202);
const words = (name: string): string[] => name.split(/\s+/).filter((w) => w.length > 0);
const longWord = (ws: string[]): number => ws.findIndex((w) => /^\p{L}{9,}$/u.test(w));
/** A letter of `w` at position i (not the first) deleted, or doubled, or two neighbours swapped. */
function typo(w: string): string {
  const i = 1 + Math.floor(rnd() * (w.length - 2));
  const op = Math.floor(rnd() * 3);
  if (op === 0) return w.slice(0, i) + w.slice(i + 1);
  if (op === 1) return w.slice(0, i) + w[i] + w.slice(i);
  return w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2);
}

/** Queries of every kind the rounds tell apart, from the sample's own names. */
function queries(): { kind: string; q: string }[] {
  const out: { kind: string; q: string }[] = [];
  for (let k = 0; k < 1500 && out.length < 900; k++) {
    const name = rows[Math.floor(rnd() * rows.length)][NAME];
    const ws = words(name);
    if (ws.length === 0) continue;
    const at = longWord(ws);
    switch (k % 6) {
      case 0:
        out.push({ kind: "exact", q: name });
        break;
      case 1:
        out.push({ kind: "prefix", q: ws.slice(0, 2).join(" ").slice(0, -2) });
        break;
      case 2:
        if (at >= 0) out.push({ kind: "one typo", q: ws.map((w, i) => (i === at ? typo(w) : w)).join(" ") });
        break;
      case 3:
        // two typos in one long word: one typo a word first, which matches nothing, then the full round
        if (at >= 0) out.push({ kind: "two typos in a word", q: ws.map((w, i) => (i === at ? typo(typo(w)) : w)).join(" ") });
        break;
      case 4:
        // a word no name holds, even two typos away: words dropped
        out.push({ kind: "unknown word", q: `${ws.slice(0, 3).join(" ")} Zqxwvjkpt` });
        break;
      case 5:
        // a short word mangled beyond its typo budget, beside the rest of the name
        out.push({ kind: "mangled short word", q: ["Xq", ...ws.slice(0, 3)].join(" ") });
        break;
    }
  }
  return out;
}

type Parts = SearchAnswer<HitSource>[];
const request = (q: string, over: Partial<SearchRequest> = {}): SearchRequest => ({
  q,
  fields: "all",
  filters: {},
  facets: ["country", "status"],
  window: 10,
  ...over,
});

/** The answer as text, read before the next search reuses the slice's buffers. */
function signature(parts: Parts): string {
  return parts
    .map((a) => {
      const hits: number[] = [];
      for (let i = 0; i < a.hits.count; i++) hits.push(a.hits.docAt(i), a.hits.score(i));
      return JSON.stringify([a.found, a.plan.matched, a.plan.required, a.facets, hits]);
    })
    .join(" | ");
}

/** The front's rounds after `first` (the slice's reply to the exact round), each asked of the slice. */
async function rounds(req: SearchRequest, first: ShardReply | null): Promise<string> {
  if (first === null || first.kind !== "search") throw new Error(`no search answer to ${JSON.stringify(req.q)}`);
  return signature(await typoRounds<HitSource>(req, [first], (_, query) => slice.searchWithin(query, 0)!));
}

const roundByRound = (req: SearchRequest): Promise<string> =>
  rounds(req, answerSearch(slice, roundQuery(req, 0, false, req.maxTypos), true));

t.test("a lone slice's one call answers as the front's rounds do, and settles every search", async (t) => {
  const settled = new Map<string, number>();
  let differ = 0;
  let dropped = 0;
  let chained = 0;
  const all = queries();
  for (const { kind, q } of all) {
    for (const over of [{}, { filters: { country: ["DE", "US", "GB"] } }, { maxTypos: 1 }] as Partial<SearchRequest>[]) {
      const req = request(q, over);
      const guessed = answerSearch(slice, roundQuery(req, 0, false, req.maxTypos), true);
      // one typo a word first (the guess) matched nothing: the full round comes after
      if (guessed?.kind === "search" && guessed.guess?.maxTypos === 1 && !guessed.guess.plan.matched) chained++;
      const expected = await rounds(req, guessed);
      const reply = answerSearch(slice, roundQuery(req, 0, false, req.maxTypos), true, 0, true);
      if (reply === null || reply.kind !== "search") throw new Error(`no answer to ${q}`);
      const key = `${kind}: ${reply.settled ?? "unsettled"}`;
      settled.set(key, (settled.get(key) ?? 0) + 1);
      if (reply.settled === "typo" && reply.plan.matched && reply.plan.required < reply.plan.tokens) dropped++;
      const got = await rounds(req, reply);
      if (got !== expected && ++differ <= 5)
        t.fail(`${kind} ${JSON.stringify(q)} ${JSON.stringify(over)}:\n  rounds  ${expected}\n  settled ${got}`);
    }
  }
  t.equal(differ, 0, `${all.length * 3} searches answered alike`);
  t.notOk(
    [...settled.keys()].some((k) => k.endsWith("unsettled")),
    "no work budget: every search settled",
  );
  for (const kind of ["one typo", "two typos in a word", "unknown word", "mangled short word"]) {
    t.ok((settled.get(`${kind}: typo`) ?? 0) >= 10, `${kind}: settled by a typo round (${settled.get(`${kind}: typo`) ?? 0})`);
  }
  t.ok((settled.get("exact: exact") ?? 0) >= 100, `exact names settled by the exact round (${settled.get("exact: exact")})`);
  t.ok(dropped >= 50, `${dropped} settled with words dropped`);
  t.ok(chained >= 10, `${chained} needed one typo a word, then the full round`);

  const oneTypo = answerSearch(slice, roundQuery(request("Kalmorvintagx Trading"), 0, false, undefined), true, 0, true);
  t.equal(oneTypo?.kind === "search" && oneTypo.settled, "typo", "settled by a typo round");
  t.equal(oneTypo?.kind === "search" && oneTypo.found, 1, "one typo a word first: the name one typo away only");
});

t.test("within a work budget (a front thread inline) the slice guesses as among several, and the front answers the same", async (t) => {
  const all = queries().filter((x) => x.kind !== "exact");
  let answered = 0;
  let differ = 0;
  for (const { q } of all) {
    const req = request(q);
    const expected = await roundByRound(req);
    const reply = answerSearch(slice, roundQuery(req, 0, false, req.maxTypos), true, 1_000_000, true);
    if (reply === null || reply.kind !== "search") throw new Error(`no answer to ${q}`);
    if (reply.settled !== undefined) t.fail(`${q}: settled within a budget`);
    answered++;
    if ((await rounds(req, reply)) !== expected) differ++;
  }
  t.equal(differ, 0, `${answered} answers alike`);
});

/**
 * A view of the one slice whose requests cross the codec both ways and are answered here as a
 * worker would; `alone: false` strips the flag on the way, as for a slice among several.
 */
function viewOf(alone: boolean): { view: InstanceType<typeof CollectionView>; requests: () => number } {
  let requests = 0;
  const shards: ShardRequests = {
    request: (_slice: number, _gen: number, sent: ShardRequest) => {
      requests++;
      const [request] = codec.decodeRequests(codec.encodeRequests([sent]));
      if (!alone && request.kind === "search") delete request.alone;
      return Promise.resolve(codec.decodeResponses(codec.encodeResponses([answerRequest(slice, request)], 0))[0]);
    },
  };
  const view = new CollectionView(shards);
  view.openReaders(1, [{ docFile: slice.share.docFile, leis: slice.leiTable }]);
  const meta = { name: "t", source: "t", published: null, downloadSeconds: null, ingestSeconds: null, loadedAt: "", fallback: false };
  view.swap(1, [slice.docs], meta);
  return { view, requests: () => requests };
}

t.test("through the front and the codec: one request a search, the same pages as round by round", async (t) => {
  const lone = viewOf(true);
  const rounded = viewOf(false);
  const page = (view: InstanceType<typeof CollectionView>, req: SearchRequest): Promise<string> =>
    view.searchWith(req, 0, (o) =>
      JSON.stringify([o.found, o.facets, o.hits.map(([score, lei, doc]) => [score, lei, Buffer.from(doc).toString()])]),
    );
  const all = queries().slice(0, 300);
  let differ = 0;
  for (const { q } of all) {
    const req = request(q);
    if ((await page(lone.view, req)) !== (await page(rounded.view, req))) differ++;
  }
  t.equal(differ, 0, `${all.length} pages alike`);
  t.equal(lone.requests(), all.length, "the lone slice was asked once a search");
  t.ok(rounded.requests() >= all.length + 50, `round by round: ${rounded.requests() - all.length} more requests`);
});

t.test("a later round of the query in the buffer rewrites only its typo settings, and answers as a fresh write", async (t) => {
  const { WasmSlice } = (await import(dist("engine/wasm-slice.js"))) as typeof import("../src/engine/wasm-slice.js");
  // another instance on the same memory, whose buffer holds some other query before each round
  const fresh = WasmSlice.adopt(slice.share);
  const elsewhere = roundQuery(request("Trading"), 0, false, undefined);
  const answer = (of: typeof slice, query: ReturnType<typeof roundQuery>): string => {
    if (of === fresh) of.searchWithin(elsewhere, 0);
    return signature([of.searchWithin(query, 0)!]);
  };
  let rounds = 0;
  let differ = 0;
  for (const { q } of queries().slice(0, 200)) {
    for (const over of [{}, { filters: { country: ["DE", "US", "GB"] } }, { maxTypos: 1 }] as Partial<SearchRequest>[]) {
      const req = request(q, over);
      const exact = roundQuery(req, 0, false, req.maxTypos);
      slice.searchWithin(exact, 0);
      const all = (1 << Math.min(16, words(q).length)) - 1;
      for (const [typoMask, dropTokens, maxTypos] of [
        [all, false, 1],
        [all, true, req.maxTypos],
        [1, true, 0],
      ] as const) {
        const query = roundQuery(req, typoMask, dropTokens, maxTypos);
        rounds++;
        if (answer(slice, query) !== answer(fresh, query)) differ++;
      }
    }
  }
  t.equal(differ, 0, `${rounds} later rounds answered as a fresh write`);

  // what is not the same query is written again: other filters, or more typos than were written
  const req = request("Kalmorvintxxe Trading"); // two typos from NEAR
  slice.searchWithin(roundQuery(req, 0, false, 0), 0);
  const wider = roundQuery(req, 0b11, false, 2);
  t.equal(answer(slice, wider), answer(fresh, wider), "two typos after a query written with none: written again");
  t.ok(slice.searchWithin(wider, 0)!.found >= 1, "and it finds the name two typos away");
  slice.searchWithin(roundQuery(req, 0, false, undefined), 0);
  const filtered = roundQuery({ ...req, filters: { country: ["ZZ"] } }, 0b11, false, undefined);
  t.equal(slice.searchWithin(filtered, 0)!.found, 0, "a filter the written query lacked: written again, and it filters");
});
