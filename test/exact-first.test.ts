// Ranking on registry-shaped near-twins: a pasted exact name is first whatever its repeated
// words, script or width; ties go to the name closest in length, then to current registrations;
// and the answers are the same on 1 shard and on 3. The twins are added to the real sample, so
// they compete with 6,147 real names too.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import { COLUMN_OF, csvLine, readSample, withCheckDigits } from "./helpers/fixture.js";
import { qs, startServer, tempDir, type RunningServer } from "./helpers/server.js";

const { header, rows, text } = readSample();
const col = (name: string): number => header.indexOf(name);
const LEI = col(COLUMN_OF.lei),
  NAME = col(COLUMN_OF.legalName);
const REG = col(COLUMN_OF.registrationStatus),
  STATUS = col(COLUMN_OF.entityStatus);

interface Twin {
  name: string;
  registration?: string;
  status?: string;
}
let serial = 0;
const leiOf = new Map<string, string>();
/** A real row with the twin's name and states, and a new LEI (numbered: later twins sort after). */
function twinRow(tw: Twin, tag: string): string {
  const row = [...rows[serial % rows.length]];
  row[LEI] = withCheckDigits(`LEIDEXRANK${String(serial++).padStart(8, "0")}`);
  row[NAME] = tw.name;
  row[REG] = tw.registration ?? "ISSUED";
  row[STATUS] = tw.status ?? "ACTIVE";
  leiOf.set(tag, row[LEI]);
  return csvLine(row);
}

// An umbrella fund whose name repeats its first word, among siblings that share every word but one.
const FUND = "ALDERWICK FUNDS SICAV - ALDERWICK BALANCED FUND";
const FUND_TWINS = [
  "FUNDS SICAV - ALDERWICK BALANCED FUND",
  "BRENTMOOR FUNDS SICAV - ALDERWICK BALANCED FUND",
  "ALDERWICK FUNDS SICAV - BALANCED FUND",
  "ALDERWICK FUNDS SICAV - ALDERWICK BALANCED FUNDS",
  "ALDERWICK FUNDS SICAV - ALDERWICK BALANCED FUND II",
  "ALDERWICK FUNDS SICAV - ALDERWICK ALDERWICK BALANCED FUND",
  ...Array.from(
    { length: 30 },
    (_, i) => `ALDERWICK FUNDS SICAV - ALDERWICK ${["GROWTH", "INCOME", "EQUITY", "BOND", "GLOBAL"][i % 5]} FUND ${i + 1}`,
  ),
];
// A Japanese fund stored in full-width forms, and siblings one character apart.
const JP = "ＱＬＸ桜川都市関連株マザーファンド（適格機関投資家専用）";
const JP_TWINS = [
  "ＱＬＸ桜川都市関連株マザァンド（適格機関投資家専用）",
  "ＱＬＸ桜川都市関連株ファンド（適格機関投資家専用）",
  "ＱＬＸ桜川都市関連株マザーファンドＦ（適格機関投資家専用）",
];
// (Names invented, so that the real sample holds no copy of them.)
// A Latin name stored half-width, to be pasted in full-width.
const KLP = "QLX III FUNDING III EUROPE DESIGNATED ACTIVITY COMPANY";
const KLP_TWINS = [
  "QLX III FUNDING EUROPE DESIGNATED ACTIVITY COMPANY",
  "QLX FUNDING III EUROPE DESIGNATED ACTIVITY COMPANY",
  "QLX III FUNDING IV EUROPE DESIGNATED ACTIVITY COMPANY",
];
// The same name twice: a lapsed registration with the lower LEI, and a current one.
const HARROW = "HARROWGATE TRADING LIMITED";

const lines = [
  twinRow({ name: HARROW, registration: "LAPSED", status: "INACTIVE" }, "harrow-lapsed"),
  twinRow({ name: HARROW }, "harrow-issued"),
  twinRow({ name: "HARROWGATE TRADING GROUP HOLDINGS LIMITED" }, "harrow-long"),
  ...FUND_TWINS.map((name, i) => twinRow({ name }, `fund-twin-${i}`)),
  twinRow({ name: FUND, registration: "LAPSED" }, "fund"),
  ...JP_TWINS.map((name, i) => twinRow({ name }, `jp-twin-${i}`)),
  twinRow({ name: JP }, "jp"),
  ...KLP_TWINS.map((name, i) => twinRow({ name }, `klp-twin-${i}`)),
  twinRow({ name: KLP }, "klp"),
];
const source = join(tempDir(t), "twins.csv");
writeFileSync(source, `${text.trimEnd()}\r\n${lines.join("\r\n")}\r\n`);

const one = await startServer(t, { rateLimit: 0, shards: 1, source });
const three = await startServer(t, { rateLimit: 0, shards: 3, source });

async function leis(srv: RunningServer, params: Record<string, string | number>): Promise<string[]> {
  const r = await srv.get(`/v1/entities${qs({ limit: 10, ...params })}`);
  if (r.status !== 200) throw new Error(`${JSON.stringify(params)} -> ${r.status} ${r.text}`);
  return r.body.results.map((e: { lei: string }) => e.lei);
}

const toFullWidth = (s: string): string =>
  s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).replace(/ /g, "\u3000");

const exactCases: [string, string, string][] = [
  ["the fund name as stored", FUND, "fund"],
  ["the fund name in lower case with an en dash", "alderwick funds sicav – alderwick balanced fund", "fund"],
  ["the fund name without its punctuation", "Alderwick Funds SICAV Alderwick Balanced Fund", "fund"],
  ["the full-width fund name, half-width", "QLX桜川都市関連株マザーファンド(適格機関投資家専用)", "jp"],
  ["the full-width fund name as stored", JP, "jp"],
  ["a half-width name pasted in full-width", toFullWidth(KLP), "klp"],
  ["a half-width name with its repeated word", KLP.toLowerCase(), "klp"],
];

for (const [srv, label] of [
  [one, "1 shard"],
  [three, "3 shards"],
] as const) {
  t.test(`an exact name is first (${label})`, async (t) => {
    for (const [what, q, tag] of exactCases) {
      for (const fields of ["all", "name"]) {
        const r = await srv.get(`/v1/entities${qs({ q, fields, limit: 3 })}`);
        const first = r.body.results[0];
        t.equal(first?.lei, leiOf.get(tag), `${what}, fields=${fields}: ${q} (first: ${first?.legalName})`);
      }
    }
    // the fund is LAPSED and its twins ISSUED: exactness comes before standing, and the twins follow
    const fund = await leis(srv, { q: FUND });
    const twins = new Set(FUND_TWINS.map((_, i) => leiOf.get(`fund-twin-${i}`)));
    t.equal(fund.length, 7, "the exact name and the six twins that hold every word of it");
    t.ok(
      fund.slice(1).every((lei) => twins.has(lei)),
      "the rest of the page is the fund's near-twins",
    );
  });

  t.test(`a repeated word is matched at no cost only by a name that repeats it (${label})`, async (t) => {
    // a typo, so no exact-name key helps: the fund (LAPSED) holds "alderwick" twice, and twins
    // that hold it once (ISSUED, closer together) would otherwise outrank it
    for (const q of ["ALDERWICK FUNDS SICAV - ALDERWICK BALANCD FUND", "alderwick funds sicav alderwick balanced funf"]) {
      const hits = await leis(srv, { q });
      t.equal(hits[0], leiOf.get("fund"), `${q}: the fund first`);
      t.ok(hits.includes(leiOf.get("fund-twin-1")!), "the twin that holds the word once still matches");
    }
  });

  t.test(`ties go to the closest length, then to current registrations (${label})`, async (t) => {
    const exact = await leis(srv, { q: HARROW });
    t.same(
      exact.slice(0, 2),
      [leiOf.get("harrow-issued"), leiOf.get("harrow-lapsed")],
      "the issued twin before the lapsed one with the lower LEI",
    );
    const prefix = await leis(srv, { q: "harrowgate trad" });
    t.same(
      prefix.slice(0, 3),
      [leiOf.get("harrow-issued"), leiOf.get("harrow-lapsed"), leiOf.get("harrow-long")],
      "a prefix's shortest completions first, the current one before the lapsed one",
    );
  });

  t.test(`filters still apply to exact names (${label})`, async (t) => {
    const issued = await leis(srv, { q: FUND, registrationStatus: "ISSUED" });
    t.notOk(issued.includes(leiOf.get("fund")!), "the lapsed exact name is filtered out");
    t.ok(issued.length > 0, "its issued twins remain");
    const r = await srv.get(`/v1/entities${qs({ q: HARROW, registrationStatus: "LAPSED", limit: 10 })}`);
    t.equal(r.body.results[0]?.lei, leiOf.get("harrow-lapsed"));
  });
}

t.test("1 shard and 3 shards answer the same (hits, order, found, facets)", async (t) => {
  const queries = [
    ...exactCases.map(([, q]) => ({ q })),
    { q: HARROW },
    { q: "harrowgate trad" },
    { q: "alderwick" },
    { q: "alderwick balanced" },
    { q: "alderwick funds sicav alderwick" },
    { q: FUND, registrationStatus: "ISSUED" },
    { q: "alderwik balanced fund" },
    { q: "qlx funding europe" },
  ];
  for (const params of queries) {
    const p = { ...params, limit: 20, facets: "status,registrationStatus" };
    const [a, b] = await Promise.all([one.get(`/v1/entities${qs(p)}`), three.get(`/v1/entities${qs(p)}`)]);
    t.equal(a.status, 200);
    t.same(
      b.body.results.map((e: { lei: string }) => e.lei),
      a.body.results.map((e: { lei: string }) => e.lei),
      `hits of ${params.q}`,
    );
    t.equal(b.body.found, a.body.found, `found of ${params.q}`);
    t.ok(a.body.found > 0, `${params.q} finds something`);
    t.same(b.body.facets, a.body.facets, `facets of ${params.q}`);
  }
});
