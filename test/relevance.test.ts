// Relevance on the bundled real sample (6,147 GLEIF records): real legal names picked with a
// seeded generator, then searched with a realistic typo, as a truncated prefix, and exactly.
// Plus non-Latin scripts: CJK by a few characters, full-width Latin, Cyrillic, Greek, Arabic.

import t, { type Test } from "tap";
import { readSample, seededRandom, shuffle } from "./helpers/fixture.js";
import { pMap, qs, startServer } from "./helpers/server.js";

const srv = await startServer(t, { rateLimit: 0 });

const { header, rows } = readSample();
const LEI = header.indexOf("LEI");
const NAME = header.indexOf("Entity.LegalName");
const records = rows.map((r) => ({ lei: r[LEI], name: r[NAME] }));

// ---- a test-side analysis of names, to know which names collide and which prefixes are distinctive
const FOLDS: Record<string, string> = { ł: "l", ø: "o", đ: "d", ð: "d", ß: "ss", æ: "ae", œ: "oe", þ: "th", ı: "i" };
const fold = (s: string): string =>
  s
    .normalize("NFKC")
    .toLowerCase()
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .normalize("NFC")
    .replace(/[łøđðßæœþı]/g, (c) => FOLDS[c]);
function terms(s: string): string[] {
  const out: string[] = [];
  let singles = "";
  for (const w of fold(s).match(/[\p{L}\p{N}]+/gu) ?? []) {
    if ([...w].length === 1 && /\p{L}/u.test(w)) {
      singles += w;
      continue;
    }
    if (singles) {
      out.push(singles);
      singles = "";
    }
    out.push(w);
  }
  if (singles) out.push(singles);
  return out;
}
const recTerms = records.map((r) => terms(r.name));
/** LEIs whose legal name analyses to the same terms: any of them is a right answer. */
const sameName = new Map<string, Set<string>>();
records.forEach((r, i) => {
  const key = recTerms[i].join(" ");
  if (!sameName.has(key)) sameName.set(key, new Set());
  sameName.get(key)!.add(r.lei);
});
const accepted = (i: number): Set<string> => sameName.get(recTerms[i].join(" "))!;

const search = async (q: string, extra: Record<string, string | number> = {}): Promise<string[]> => {
  const r = await srv.get(`/v1/entities${qs({ q, limit: 10, ...extra })}`);
  if (r.status !== 200) throw new Error(`q=${q} -> ${r.status} ${r.text}`);
  return r.body.results.map((e: any) => e.lei);
};
const rankOf = (leis: string[], want: Set<string>): number => leis.findIndex((l) => want.has(l));

// ---- the names under test: Latin script, at least 2 words or at least 6 letters
const LATIN_NAME = /^[\p{Script=Latin}\p{N}\p{P}\p{Zs}\p{S}]+$/u;
const eligible = records
  .map((r, i) => i)
  .filter((i) => {
    const n = records[i].name;
    if (!LATIN_NAME.test(n) || !/\p{L}/u.test(n)) return false;
    const words = n.split(/\s+/).filter((w) => /\p{L}/u.test(w));
    const letters = (n.match(/\p{L}/gu) ?? []).length;
    return words.length >= 2 || letters >= 6;
  });
const rnd = seededRandom(6147);
const picked = shuffle(eligible, rnd).slice(0, 260);

/** One realistic keyboard slip in `word` at a position after the first letter. */
function typo(word: string, kind: number, r: () => number): string {
  const chars = [...word];
  const letters = "abcdefghijklmnopqrstuvwxyz";
  const upper = word === word.toUpperCase();
  const pickLetter = (avoid: string): string => {
    let c: string;
    do c = letters[Math.floor(r() * 26)];
    while (c === avoid.toLowerCase());
    return upper ? c.toUpperCase() : c;
  };
  const pos = 1 + Math.floor(r() * (chars.length - 1)); // never the first letter
  switch (kind) {
    case 0:
      chars[pos] = pickLetter(chars[pos]);
      break; // substitution
    case 1: {
      // transposition with the next letter (or the previous at the end)
      const p = pos < chars.length - 1 ? pos : pos - 1;
      if (p < 1 || chars[p] === chars[p + 1]) {
        chars[pos] = pickLetter(chars[pos]);
        break;
      }
      [chars[p], chars[p + 1]] = [chars[p + 1], chars[p]];
      break;
    }
    case 2:
      chars.splice(pos, 1);
      break; // deletion
    default:
      chars.splice(pos, 0, pickLetter(""));
      break; // insertion
  }
  return chars.join("");
}

/** The name with one typo (two in a word of 8+ letters), the typo'd token still within budget. */
function misspell(name: string, r: () => number): string | null {
  const words = name.split(" ");
  const candidates = words.map((w, i) => i).filter((i) => /^\p{L}+$/u.test(words[i]) && [...words[i]].length >= 4);
  if (candidates.length === 0) return null;
  const wi = candidates[Math.floor(r() * candidates.length)];
  const w = words[wi];
  const len = [...w].length;
  let out = w;
  if (len >= 9) {
    // two slips; at most one deletion so the token stays at 8+ letters
    out = typo(typo(w, Math.floor(r() * 4), r), [0, 1, 3][Math.floor(r() * 3)], r);
  } else if (len >= 5) {
    out = typo(w, Math.floor(r() * 4), r);
  } else {
    out = typo(w, [0, 1, 3][Math.floor(r() * 3)], r); // no deletion: 3 letters have no typo budget
  }
  if (out === w) return null;
  words[wi] = out;
  return words.join(" ");
}

interface Outcome {
  i: number;
  q: string;
  rank: number;
}
const report = (t: Test, label: string, outcomes: Outcome[], top: number): number => {
  const hits = outcomes.filter((o) => o.rank >= 0 && o.rank < top).length;
  const rate = outcomes.length ? (100 * hits) / outcomes.length : 0;
  t.comment(`${label}: ${hits}/${outcomes.length} in the top ${top} (${rate.toFixed(1)} %)`);
  const misses = outcomes.filter((o) => !(o.rank >= 0 && o.rank < top)).slice(0, 15);
  for (const m of misses) t.comment(`  miss: q=${JSON.stringify(m.q)} (want ${records[m.i].name} ${records[m.i].lei}) rank ${m.rank}`);
  return hits;
};

t.test("the server serves the bundled sample", async (t) => {
  const stats = await srv.json("/v1/stats");
  t.equal(stats.records, 6147);
  t.match(stats.source, /bundled|sample/i, "stats says it is the bundled sample");
  t.equal(stats.license, "CC0 1.0");
  t.equal(stats.published, null, "the sample has no publication stamp");
  t.equal(stats.downloadSeconds, null, "nothing was downloaded");
  t.ok(typeof stats.ingestSeconds === "number" && stats.ingestSeconds > 0, "ingestSeconds measured");
  t.equal(picked.length, 260, "260 names picked");
});

t.test("names with a realistic typo find their entity in the top 3", async (t) => {
  const r = seededRandom(97);
  const cases = picked.map((i) => ({ i, q: misspell(records[i].name, r) })).filter((c): c is { i: number; q: string } => c.q !== null);
  const outcomes = await pMap(cases, 4, async (c) => ({ ...c, rank: rankOf(await search(c.q), accepted(c.i)) }));
  const hits = report(t, "typo", outcomes, 3);
  t.ok(hits >= 200, `at least 200 typo queries succeed (got ${hits} of ${outcomes.length})`);
});

t.test("the first words with the last one cut short find their entity in the top 3", async (t) => {
  const outcomes: Outcome[] = [];
  const all: Outcome[] = [];
  const cases: { i: number; q: string; distinctive: boolean }[] = [];
  for (const i of picked) {
    const words = records[i].name.split(" ").filter((w) => w.length > 0);
    const k = Math.min(words.length, 3);
    const first = words.slice(0, k);
    const last = first[k - 1];
    const letters = [...last];
    if (letters.length < 4) {
      if (k === 1) continue;
    }
    const cut = Math.max(3, Math.ceil(letters.length * 0.6));
    first[k - 1] = letters.slice(0, Math.min(cut, letters.length)).join("");
    const q = first.join(" ");
    // distinctive: at most 3 names hold every full term of q and a term starting with the cut one
    const qt = terms(q);
    if (qt.length === 0) continue;
    const whole = qt.slice(0, -1),
      pre = qt[qt.length - 1];
    const holders = recTerms.filter((ts) => whole.every((w) => ts.includes(w)) && ts.some((x) => x.startsWith(pre))).length;
    cases.push({ i, q, distinctive: holders <= 3 });
  }
  const results = await pMap(cases, 4, async (c) => ({ ...c, rank: rankOf(await search(c.q), accepted(c.i)) }));
  for (const r of results) {
    all.push(r);
    if (r.distinctive) outcomes.push(r);
  }
  const hits = report(t, "prefix (distinctive)", outcomes, 3);
  report(t, "prefix (all, informative)", all, 3);
  t.ok(outcomes.length >= 200, `at least 200 distinctive prefixes (got ${outcomes.length})`);
  t.ok(hits >= 200, `at least 200 distinctive prefix queries succeed (got ${hits} of ${outcomes.length})`);
  t.ok(hits >= outcomes.length * 0.95, "and at least 95 % of them");
});

t.test("the exact legal name ranks its entity first", async (t) => {
  const unique = picked.filter((i) => accepted(i).size === 1);
  const dupes = picked.filter((i) => accepted(i).size > 1);
  t.comment(`${unique.length} unique names, ${dupes.length} shared by several LEIs`);
  const outcomes = await pMap(unique, 4, async (i) => ({
    i,
    q: records[i].name,
    rank: rankOf(await search(records[i].name), accepted(i)),
  }));
  const firsts = report(t, "exact name", outcomes, 1);
  t.ok(firsts >= 200, `at least 200 exact names rank first (got ${firsts})`);
  t.equal(firsts, outcomes.length, "every unique exact name ranks its entity first");
  // names shared by several LEIs: one of them is first
  const dupOutcomes = await pMap(dupes, 4, async (i) => ({
    i,
    q: records[i].name,
    rank: rankOf(await search(records[i].name), accepted(i)),
  }));
  t.equal(report(t, "exact shared name", dupOutcomes, 1), dupOutcomes.length, "a shared name ranks one of its LEIs first");
});

t.test("an exact name with fields=name ranks first too, lower-cased and without punctuation", async (t) => {
  const some = picked.filter((i) => accepted(i).size === 1).slice(0, 60);
  const outcomes = await pMap(some, 4, async (i) => {
    const q = records[i].name.toLowerCase().replace(/[^\p{L}\p{N}\s]/gu, " ");
    return { i, q, rank: rankOf(await search(q, { fields: "name" }), accepted(i)) };
  });
  const hits = report(t, "lower-cased, punctuation-free name", outcomes, 1);
  t.ok(hits >= outcomes.length * 0.95, "at least 95 % rank first");
});

const leiOf = (name: string): string => {
  const r = records.find((x) => x.name === name);
  if (!r) throw new Error(`not in the sample: ${name}`);
  return r.lei;
};
const expectTop = async (t: Test, q: string, name: string, top = 1, extra: Record<string, string> = {}): Promise<void> => {
  const leis = await search(q, extra);
  const rank = leis.indexOf(leiOf(name));
  t.ok(rank >= 0 && rank < top, `q=${JSON.stringify(q)} finds ${name} in the top ${top} (rank ${rank})`);
};

t.test("CJK names by a few characters (bigrams)", async (t) => {
  await expectTop(t, "柳元电子", "威海柳元电子有限公司");
  await expectTop(t, "柳元", "威海柳元电子有限公司");
  await expectTop(t, "中国华能", "中国华能集团香港财资管理有限公司");
  await expectTop(t, "华能集团", "中国华能集团香港财资管理有限公司");
  await expectTop(t, "东上电子", "烟台市东上电子有限公司");
  await expectTop(t, "锡山换向器", "无锡市锡山换向器有限责任公司");
  await expectTop(t, "アセット・スリー", "アセット・スリー特定目的会社");
  await expectTop(t, "スリー特定", "アセット・スリー特定目的会社");
  const weihai = await search("威海");
  t.ok(
    weihai.includes(leiOf("威海柳元电子有限公司")) && weihai.includes(leiOf("威海中威橡胶有限公司")),
    "威海 finds both Weihai companies",
  );
  const master = (await srv.get(`/v1/entities${qs({ q: "マスタートラスト", limit: 100 })}`)).body;
  const masterNames = records.filter((r) => r.name.includes("マスタートラスト")).length;
  t.ok(masterNames > 1 && master.found >= masterNames, `マスタートラスト finds all ${masterNames} Master Trust names`);
  t.ok(
    master.results.slice(0, masterNames).every((e: any) => e.legalName.includes("マスタートラスト")),
    "and they rank first",
  );
});

t.test("full-width Latin (NFKC)", async (t) => {
  for (const q of ["ＪＦＥ", "JFE", "jfe", "ｊｆｅ", "ＪＦＥ商事"]) await expectTop(t, q, "ＪＦＥ商事株式会社");
  for (const q of ["ＣＡＴＨＡＹ", "Cathay", "cathay 顾问"]) await expectTop(t, q, "ＣＡＴＨＡＹ顾问（北京）有限公司");
});

t.test("Cyrillic, Greek and Arabic names", async (t) => {
  await expectTop(t, "Българска енергийна", "Българска енергийна търговска платформа");
  await expectTop(t, "българска енергийна търговска платформа", "Българска енергийна търговска платформа");
  await expectTop(t, "Бьлгарска енергийна", "Българска енергийна търговска платформа", 3); // one typo
  await expectTop(t, "СОЛАР", 'Общество с ограниченной ответственностью "СОЛАР"');
  await expectTop(t, "ТЕХПЛАСТИК", 'Общество с ограниченной ответственностью "ТЕХПЛАСТИК"');
  await expectTop(t, "браво екуити", "Браво Екуити ООД");
  await expectTop(t, "ΣΦΟΛΙΑΤΑ", "ΕΥΡΩΠΑΪΚΗ ΣΦΟΛΙΑΤΑ ΑΝΩΝΥΜΗ ΕΤΑΙΡΙΑ");
  await expectTop(t, "ευρωπαικη σφολιατα", "ΕΥΡΩΠΑΪΚΗ ΣΦΟΛΙΑΤΑ ΑΝΩΝΥΜΗ ΕΤΑΙΡΙΑ");
  await expectTop(t, "Ευρωπαϊκή Σφολιάτα", "ΕΥΡΩΠΑΪΚΗ ΣΦΟΛΙΑΤΑ ΑΝΩΝΥΜΗ ΕΤΑΙΡΙΑ");
  await expectTop(t, "αιολικη ενεργειακη ευβοιας", "ΑΙΟΛΙΚΗ ΕΝΕΡΓΕΙΑΚΗ ΕΥΒΟΙΑΣ ΑΝΩΝΥΜΗ ΕΤΑΙΡΕΙΑ");
  await expectTop(t, "مصر للتأمين", "شركة مصر للتأمين");
  await expectTop(t, "شركة مصر", "شركة مصر للتأمين");
});

t.test("every non-Latin legal name finds its entity by the full name", async (t) => {
  const nonLatin = records
    .map((r, i) => i)
    .filter((i) => /[^\p{Script=Latin}\p{Script=Common}\p{Script=Inherited}]/u.test(records[i].name));
  t.ok(nonLatin.length >= 100, `${nonLatin.length} non-Latin names`);
  const outcomes = await pMap(nonLatin, 4, async (i) => ({
    i,
    q: records[i].name,
    rank: rankOf(await search(records[i].name), accepted(i)),
  }));
  const hits = report(t, "non-Latin full name", outcomes, 3);
  t.ok(hits >= outcomes.length * 0.95, "at least 95 % in the top 3");
});

// A query keeps at most 16 tokens (its first and last eight), and CJK text makes one token per
// character pair: in "日本マスタートラスト信託銀行株式会社/T400990406" (17 bigrams + the T number) the tail
// is what tells the 10 Master Trust accounts apart, so the exact name must still rank first.
t.test("a long CJK exact name ranks its entity first", async (t) => {
  const masters = records.map((r, i) => i).filter((i) => records[i].name.startsWith("日本マスタートラスト信託銀行株式会社/"));
  t.ok(masters.length >= 5, `${masters.length} Master Trust accounts`);
  for (const i of masters) {
    const leis = await search(records[i].name);
    t.equal(leis[0], records[i].lei, `${records[i].name} ranks first`);
  }
});

t.test("diacritics folded, S.R.L. = SRL, ß = ss", async (t) => {
  await expectTop(t, "Vrangens Kraft", "Vrångens Kraft AB");
  await expectTop(t, "VRÅNGENS KRAFT AB", "Vrångens Kraft AB");
  await expectTop(t, "CARDELLI SRL", "CARDELLI S.R.L.");
  await expectTop(t, "cardelli s r l", "CARDELLI S.R.L.");
  await expectTop(t, "ELEKTRA INVEST S.R.L.", "ELEKTRA INVEST SRL");
  await expectTop(t, "latempa metalli srl", "LATEMPA METALLI S.R.L.");
  await expectTop(t, "Neustadt an der Weinstrasse Rotes Kreuz", "Deutsches Rotes Kreuz Stadtverband Neustadt an der Weinstraße e. V.");
  await expectTop(
    t,
    "Klaus-Jurgen Gran Stiftung",
    "Klaus-Jürgen Gran und Evelyn Gran Stiftung zur Förderung der Kultur des Alpinismus im Deutschen Alpenverein",
  );
  await expectTop(t, "rafal kolikow", "RAFAŁ KOLIKOW");
  await expectTop(t, "kolobrzeg", "RAFAŁ KOLIKOW", 1, { fields: "address" });
});

t.test("results do not depend on the number of shards", async (t) => {
  const one = await startServer(t, { shards: 1, rateLimit: 0 });
  const three = await startServer(t, { shards: 3, rateLimit: 0 });
  const queries = [
    "energy trading",
    "bank",
    "deutsche bank",
    "holding",
    "kraft",
    "metalli",
    "fund",
    "invest",
    "capital partners",
    "solar",
    "sa",
  ];
  for (const q of queries) {
    const url = `/v1/entities${qs({ q, limit: 20 })}`;
    const [a, b, c] = await Promise.all([srv.json(url), one.json(url), three.json(url)]);
    t.equal(b.found, a.found, `q=${q}: found with 1 shard = with 2`);
    t.equal(c.found, a.found, `q=${q}: found with 3 shards = with 2`);
    t.same(
      b.results.map((e: any) => e.lei),
      a.results.map((e: any) => e.lei),
      `q=${q}: same top 20 with 1 shard`,
    );
    t.same(
      c.results.map((e: any) => e.lei),
      a.results.map((e: any) => e.lei),
      `q=${q}: same top 20 with 3 shards`,
    );
  }
});
