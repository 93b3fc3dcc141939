// Issue 20's keyed-API items: synonym expansion with bounded work (17), merged synonym variants
// that read only the page's documents and a multi_search with bounded work (18), exports cut off
// when their reader stalls and capped per key (11), imports checked against the last load like a
// reload (20), and import refusals that name no server path and are logged once (23).

import t from "tap";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { Collection } from "../src/engine/collection.js";
import { DocStoreReader } from "../src/engine/doc-store.js";
import type { ShardPool } from "../src/engine/pool.js";
import type { HitRef, ShardRequest, ShardResponse } from "../src/engine/protocol.js";
import { MULTI_SEARCH_MAX_HITS, MAX_EXPORTS_PER_KEY } from "../src/engine-api/keyed-limits.js";
import type { SynonymRule } from "../src/engine-api/search-settings.js";
import { SYNONYM_LIMITS, SynonymIndex } from "../src/engine-api/synonyms.js";
import { fromTypesense } from "../src/engine-api/typesense-search.js";
import { withQuery } from "../src/lei/search-params.js";
import { LeiService } from "../src/lei/service.js";
import { csvLine, readSample, withCheckDigits, zipSingle } from "./helpers/fixture.js";
import { goldenCopyCsv, importSynthetics } from "./helpers/keyed-extras.js";
import { keyedRequest, type KeyedInit, type KeyedResponse } from "./helpers/keys.js";
import { qs, startServer, tempDir, type RunningServer } from "./helpers/server.js";

const KEY = `kw-boot-${randomBytes(12).toString("hex")}`;
const TOTAL = 6147;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// ------------------------------------------------------------------------------ 17. synonym expansion

const rule = (synonyms: string[], root?: string): SynonymRule => ({ id: "r", synonyms, ...(root !== undefined ? { root } : {}) });

t.test("synonyms: the variants of q, as before, within the limits", async (t) => {
  const index = new SynonymIndex([rule(["ltd", "limited"]), rule(["pvt ltd", "Private  Limited"]), rule(["co"], "company")]);
  t.same(index.variants("Alford  LTD"), ["alford ltd", "alford limited"], "a multi-way rule, q normalised");
  t.same(
    index.variants("kodak pvt ltd"),
    ["kodak pvt ltd", "kodak pvt limited", "kodak private limited"],
    "rules apply in order, the later to the earlier's variants",
  );
  t.same(index.variants("acme company"), ["acme company", "acme co"], "a one-way rule from its root");
  t.same(index.variants("acme co"), ["acme co"], "and not back");
  const many = new SynonymIndex(Array.from({ length: 10 }, (_, i) => rule([`w${i}`, `x${i}`, `y${i}`])));
  t.equal(many.variants("w0 w1 w2 w3 w4").length, SYNONYM_LIMITS.variants, `at most ${SYNONYM_LIMITS.variants} variants`);
});

t.test("synonyms: a q over the word limit is searched as it is", async (t) => {
  const index = new SynonymIndex([rule(["ltd", "limited"])]);
  const words = (n: number): string => [...Array.from({ length: n - 1 }, (_, i) => `w${i}`), "ltd"].join(" ");
  t.equal(index.variants(words(SYNONYM_LIMITS.queryWords)).length, 2, `${SYNONYM_LIMITS.queryWords} words: expanded`);
  t.same(
    index.variants(words(SYNONYM_LIMITS.queryWords + 1)),
    [words(SYNONYM_LIMITS.queryWords + 1)],
    `${SYNONYM_LIMITS.queryWords + 1} words: not`,
  );
  // the case: 400 rules of 50 one-letter phrases, q of 240 one-letter words
  const letters = "abcdefghijklmnopqrstuvwxyz0123456789".split("");
  const phrases = [...letters, ...letters.slice(0, 14).map((w) => w + w)];
  const planted = new SynonymIndex(Array.from({ length: 400 }, (_, i) => rule([...phrases.slice(i % 50), ...phrases.slice(0, i % 50)])));
  const q = Array.from({ length: 240 }, (_, i) => letters[i % letters.length]).join(" ");
  t.same(planted.variants(q), [q], "240 words against 400 planted rules: q alone");
});

t.test("synonyms: an expansion stops after its step budget, however many rules could match", async (t) => {
  // rules that share q's first word but never match, then one that would
  const decoys = Array.from({ length: SYNONYM_LIMITS.steps + 10 }, (_, i) => rule([`acme nomatch${i}`, `other${i}`]));
  const index = new SynonymIndex([...decoys, rule(["acme", "apex"])]);
  t.same(index.variants("acme holdings"), ["acme holdings"], "the budget is spent on the decoys: q alone");
  // rules whose words q does not hold cost nothing: the one that matches is found behind them
  const unrelated = Array.from({ length: 50_000 }, (_, i) => rule([`zz${i}`, `yy${i}`]));
  const indexed = new SynonymIndex([...unrelated, rule(["acme", "apex"])]);
  t.same(indexed.variants("acme holdings"), ["acme holdings", "apex holdings"], "rules of other words are never looked at");
});

t.test("synonyms: an expansion's work does not grow with the number of rules sharing q's words", async (t) => {
  // every rule holds a phrase for each of q's 32 words and matches none of them; a rule has up to
  // 50 phrases and nothing caps how many rules there are
  const words = Array.from({ length: SYNONYM_LIMITS.queryWords }, (_, i) => `w${i}`);
  const readsWith = (rules: number): number => {
    const index = new SynonymIndex(Array.from({ length: rules }, (_, r) => rule(words.map((w) => `${w} z${r}`))));
    let reads = 0;
    const lists = (index as unknown as { byFirstWord: Map<string, number[]> }).byFirstWord;
    for (const [word, list] of lists) {
      lists.set(
        word,
        new Proxy(list, {
          get: (target, p, receiver) => {
            if (typeof p === "string" && /^\d+$/.test(p)) reads++;
            return Reflect.get(target, p, receiver);
          },
        }),
      );
    }
    t.same(index.variants(words.join(" ")), [words.join(" ")], `${rules} rules: q alone`);
    return reads;
  };
  const few = readsWith(SYNONYM_LIMITS.steps);
  t.equal(
    readsWith(10 * SYNONYM_LIMITS.steps),
    few,
    `rules read for 10 × ${SYNONYM_LIMITS.steps} rules: as many as for ${SYNONYM_LIMITS.steps}`,
  );
});

// ------------------------------------------------------------------------------ 18. merged variants read only the page

t.test("merged synonym variants read only the page's documents", async (t) => {
  const dir = tempDir(t);
  const DOC = 16;
  const DOCS = 40_000;
  const segment = join(dir, "slice-0.seg");
  const bytes = Buffer.alloc(32 + DOCS * DOC, 0x20);
  for (let d = 0; d < DOCS; d++) bytes.write(`{"d":${String(d).padStart(8, "0")}}`.padEnd(DOC - 1) + "\n", 32 + d * DOC);
  writeFileSync(join(dir, "slice-0.docs"), bytes);
  // one slice whose every variant answers its whole window: variant v's hit i is doc v*10,000+i
  const variantsSeen: string[] = [];
  const pool = {
    threads: 1,
    // an empty LEI table: this test looks nothing up; the one worker opens the one slice
    run: async () => ({
      docs: DOCS,
      leis: { memory: new SharedArrayBuffer(16), docs: 0, termBytesAt: 0, termOffsAt: 0, docStartAt: 8, docLenAt: 8 },
    }),
    broadcast: async () => [],
    request: async (_slice: number, _gen: number, request: ShardRequest): Promise<ShardResponse> => {
      if (request.kind !== "search") throw new Error(`unexpected ${request.kind}`);
      const v = Number(/v(\d)/.exec(request.query.q ?? "")?.[1] ?? 0);
      variantsSeen.push(request.query.q ?? "");
      const hits: HitRef[] = Array.from({ length: request.query.window }, (_, i) => {
        const d = v * 10_000 + i;
        return [1_000_000 - i * 4 - v, withCheckDigits(`KWDOC${String(d).padStart(13, "0")}`), 0, d * DOC, DOC];
      });
      return {
        kind: "search",
        found: 10_000,
        hits,
        facets: {},
        plan: { tokens: 0, required: 0, exactMask: 0, typoable: 0, wideTypos: 0, bestWhole: 0, matched: true, named: 0 } as never,
      };
    },
  } as unknown as ShardPool;
  const collection = new Collection(pool, { fixed: 1 });
  const { gen, sliceDocs } = await collection.open(1, () => segment);
  collection.swap(gen, sliceDocs, {
    name: "fake",
    source: "fake",
    published: null,
    downloadSeconds: null,
    ingestSeconds: null,
    loadedAt: new Date().toISOString(),
    fallback: false,
  });
  const service = new LeiService(collection, 0);

  let reads = 0;
  let bytesRead = 0;
  const readInto = DocStoreReader.prototype.readInto;
  DocStoreReader.prototype.readInto = function (this: DocStoreReader, ...args: Parameters<DocStoreReader["readInto"]>) {
    reads++;
    bytesRead += args[1];
    return readInto.apply(this, args);
  };
  t.teardown(() => {
    DocStoreReader.prototype.readInto = readInto;
  });

  const base = fromTypesense({ q: "v0", page: "40", per_page: "250" }).params;
  const variants = ["v0", "v1", "v2", "v3"].map((q) => withQuery(base, q));
  const page = await service.searchVariantsWith(variants, (o) => ({
    found: o.found,
    docs: o.hits.slice(0, 250).map((h) => Buffer.from(h[2]).toString().trim()),
  }));
  t.same(variantsSeen, ["v0", "v1", "v2", "v3"], "each variant is ranked");
  t.equal(bytesRead, 250 * DOC, "250 documents read for a page of 250 (not the 4 variants' 10,000 each)");
  t.equal(reads, 4, "in 4 reads: each variant's 62 or 63 documents of the page are neighbours in the file");
  // merged order: score 1,000,000 - 4i - v, so hit k of the merge is doc (k % 4)*10,000 + floor(k / 4)
  const expected = Array.from({ length: 250 }, (_, j) => {
    const k = 9_750 + j;
    return `{"d":${String((k % 4) * 10_000 + Math.floor(k / 4)).padStart(8, "0")}}`;
  });
  t.same(page.docs, expected, "the page is hits 9,751-10,000 of the merged variants");
  t.equal(page.found, 40_000, "found: the merged LEIs, more than the widest variant's");
});

// ------------------------------------------------------------------------------ HTTP, on the bundled sample

const call = (srv: RunningServer, path: string, init: KeyedInit = {}): Promise<KeyedResponse> =>
  keyedRequest(srv.port, path, { key: KEY, ...init });

t.test("multi_search: its total ranking work is capped with a 400 naming the limit", async (t) => {
  const srv = await startServer(t, { args: ["--api-key", KEY] });
  const deep = { collection: "lei", q: "*", page: 40, per_page: 250 }; // 10,000 hits ranked
  const fits = Math.floor(MULTI_SEARCH_MAX_HITS / 10_000);
  const ok = await call(srv, "/multi_search", { method: "POST", body: { searches: Array.from({ length: fits }, () => deep) } });
  t.equal(ok.status, 200, `${fits} searches of page 40 × 250: within the limit`);
  const over = await call(srv, "/multi_search", { method: "POST", body: { searches: Array.from({ length: fits + 1 }, () => deep) } });
  t.equal(over.status, 400, `${fits + 1} of them: 400`);
  t.match(over.body?.message, new RegExp(`at most ${MULTI_SEARCH_MAX_HITS} hits`), "the message names the limit");

  // synonym variants count: q with two variants costs twice
  t.equal((await call(srv, "/collections/lei/synonyms/ltd", { method: "PUT", body: { synonyms: ["ltd", "limited"] } })).status, 200);
  const withVariants = { collection: "lei", q: "bank ltd", page: 40, per_page: 250 };
  const half = Math.floor(fits / 2);
  t.equal(
    (await call(srv, "/multi_search", { method: "POST", body: { searches: Array.from({ length: half }, () => withVariants) } })).status,
    200,
    `${half} searches of 2 variants: within`,
  );
  t.equal(
    (await call(srv, "/multi_search", { method: "POST", body: { searches: Array.from({ length: half + 1 }, () => withVariants) } })).status,
    400,
    `${half + 1}: over`,
  );

  // a q of 240 one-letter words against 50 rules of 50 one-letter phrases: answered, and /health too
  const letters = "abcdefghijklmnopqrstuvwxyz0123456789".split("");
  const phrases = [...letters, ...letters.slice(0, 14).map((w) => w + w)];
  for (let i = 0; i < 50; i++) {
    const r = await call(srv, `/collections/lei/synonyms/planted-${i}`, {
      method: "PUT",
      body: { synonyms: [...phrases.slice(i), ...phrases.slice(0, i)] },
    });
    if (r.status !== 200) t.fail(`PUT planted-${i}: ${r.status}`);
  }
  const q = Array.from({ length: 240 }, (_, i) => letters[i % letters.length]).join(" ");
  const long = await call(srv, `/collections/lei/documents/search${qs({ q, query_by: "legalName" })}`);
  t.equal(long.status, 200, "the long q is answered");
  t.equal((await call(srv, "/health")).status, 200);
});

// ------------------------------------------------------------------------------ 11. exports

/** A request whose reader takes the response head, then stops reading. */
function stalledReader(port: number, path: string, key: string): Promise<{ socket: Socket; first: Buffer }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("error", reject);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-typesense-api-key: ${key}\r\n\r\n`);
    socket.once("data", (first: Buffer) => {
      socket.pause();
      resolve({ socket, first });
    });
  });
}

/** Resumes a stalled reader and reads until the server ends the connection. */
function readToClose(socket: Socket): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    socket.removeAllListeners("error");
    socket.on("data", (c: Buffer) => chunks.push(c));
    const done = (): void => resolve(Buffer.concat(chunks));
    socket.on("error", done);
    socket.on("close", done);
    // a stream left open (the old behaviour) ends the wait too, with everything it sent
    setTimeout(() => {
      socket.destroy();
      done();
    }, 30_000).unref();
    socket.resume();
  });
}

t.test("exports: a stalled reader is cut off; a key runs a few exports at a time (429 + Retry-After over that)", async (t) => {
  // ~18 MB of JSON lines: more than loopback's socket buffers hold for a reader that stops
  const { header, rows } = readSample();
  const LEI = header.indexOf("LEI");
  const lines = [csvLine(header)];
  for (let c = 0; c < 8; c++)
    for (let i = 0; i < rows.length; i++) {
      const r = [...rows[i]];
      r[LEI] = withCheckDigits(`KWEXP${c}${String(i).padStart(12, "0")}`);
      lines.push(csvLine(r));
    }
  const source = join(tempDir(t), "big.csv");
  writeFileSync(source, `${lines.join("\n")}\n`);
  const srv = await startServer(t, { args: ["--api-key", KEY], source, shards: 1, env: { LEIDEX_EXPORT_STALL_SECONDS: "1" } });
  const path = "/collections/lei/documents/export";
  const full = await call(srv, path);
  t.equal(full.status, 200);
  const records = full.text.split("\n").filter(Boolean).length;
  t.equal(records, rows.length * 8, "a whole export, read at once");

  const stalled = await Promise.all(Array.from({ length: MAX_EXPORTS_PER_KEY }, () => stalledReader(srv.port, path, KEY)));
  t.ok(
    stalled.every((s) => s.first.toString().startsWith("HTTP/1.1 200")),
    `${MAX_EXPORTS_PER_KEY} exports started`,
  );
  const refused = await call(srv, path);
  t.equal(refused.status, 429, `export ${MAX_EXPORTS_PER_KEY + 1} of one key while ${MAX_EXPORTS_PER_KEY} run: 429`);
  t.match(refused.headers["retry-after"], /^[1-9][0-9]*$/, "with Retry-After");
  t.match(refused.body?.message, new RegExp(`${MAX_EXPORTS_PER_KEY} exports`), "the message names the limit");
  const other = (await call(srv, "/keys", { method: "POST", body: { actions: ["documents:export"], collections: ["lei"] } })).body
    .value as string;
  t.equal((await call(srv, path, { key: other })).status, 200, "another key is not held back");

  // the stalled exports are cut off, so the key's slots come back
  let again = refused;
  for (let i = 0; i < 60 && again.status === 429; i++) {
    await sleep(500);
    again = await call(srv, path);
  }
  t.equal(again.status, 200, "once the stalled readers are cut off, the key may export again");
  for (const s of stalled) {
    const rest = Buffer.concat([s.first, await readToClose(s.socket)]).toString("latin1");
    t.notOk(rest.endsWith("0\r\n\r\n"), "a stalled export never ends as a whole answer");
    t.ok(rest.split("\n").length < records, "and holds fewer lines than the export");
  }
});

// ------------------------------------------------------------------------------ 20, 23. imports

t.test("imports: at least 90 % of the live collection unless allow_shrink=true; refusals without paths, logged once", async (t) => {
  // one slice: a load where a slice receives no record is another item of the issue (7)
  const srv = await startServer(t, { args: ["--api-key", KEY], dataDir: tempDir(t, "leidex-import-"), shards: 1 });
  const path = "/collections/lei/documents/import";
  const upload = (body: Buffer | string, query = ""): Promise<KeyedResponse> =>
    call(srv, `${path}${query}`, { method: "POST", rawBody: body, headers: { "content-type": "text/csv" } });
  const records = async (): Promise<number> => (await call(srv, "/v1/stats")).body?.records;
  const refusals = (): string[] =>
    srv
      .stdout()
      .split("\n")
      .filter((l) => l.includes("import refused"));
  const synthetic = importSynthetics();

  const three = goldenCopyCsv(0, synthetic.slice(0, 3)).text;
  const shrink = await upload(three);
  t.equal(shrink.status, 400, "3 records in place of 6,147: 400");
  t.match(shrink.body?.message, /holds 3 records, far below the 5532 expected/, "says why");
  t.match(shrink.body?.message, /allow_shrink=true/, "and how to do it on purpose");
  t.equal(await records(), TOTAL, "the live collection stays");
  t.equal(refusals().length, 1, "one log line");
  t.match(refusals()[0], /import refused: golden copy holds 3 records.*lei_sample stays live/);

  t.equal((await upload(three, "?allow_shrink=maybe")).status, 400, "allow_shrink=maybe: 400");
  t.equal((await upload(three, "?allow_shrink=false")).status, 400, "allow_shrink=false: the check applies");
  const nearly = await upload(goldenCopyCsv(5_530, synthetic).text);
  t.equal(nearly.status, 200, `5,535 records (over 90 % of 6,147) need no override: ${nearly.text}`);
  const asked = await upload(three, "?allow_shrink=true");
  t.equal(asked.status, 200, `allow_shrink=true: the 3 records go live (${asked.text})`);
  t.equal(await records(), 3);

  // refused files: the message says what was wrong without a server path; each refusal logged once
  const before = refusals().length;
  const csv = goldenCopyCsv(10, synthetic).text;
  const goodZip = zipSingle("golden-copy.csv", Buffer.from(csv, "utf8"));
  const badCrc = Buffer.from(goodZip);
  const central = badCrc.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  for (const at of [14, central + 16]) badCrc.writeUInt32LE((badCrc.readUInt32LE(at) ^ 0xffff) >>> 0, at);
  const cases: [string, Buffer | string, RegExp][] = [
    ["a zip with a wrong CRC-32", badCrc, /CRC-32/],
    ["a truncated zip", goodZip.subarray(0, Math.floor(goodZip.length / 2)), /zip/],
    ["a zip without a CSV", zipSingle("notes.txt", Buffer.from("hello")), /no \.csv entry/],
    ["a file without the LEI column", goldenCopyCsv(5, synthetic, { drop: ["LEI"] }).text, /LEI/],
  ];
  for (const [label, body, why] of cases) {
    const r = await upload(body, "?allow_shrink=true");
    t.equal(r.status, 400, `${label}: 400`);
    const message = String(r.body?.message);
    t.match(message, why, `${label}: says what was wrong (${message})`);
    t.notOk(message.includes(srv.dataDir) || /\/[^\s]*upload-[0-9]/.test(message), `${label}: names no server path`);
  }
  t.equal(refusals().length - before, cases.length, "each refusal logged once");
  t.ok(
    refusals()
      .slice(before)
      .every((l) => /import refused: .+; \S+ stays live/.test(l)),
    "with its reason",
  );
  t.equal(await records(), 3, "the live collection stays");
});
