// When nothing holds every word of a query, the engine requires fewer: the most words any doc
// holds (native/assembly/query.ts mostTokensHeld), and finds every doc holding that many. Checked
// against a count by hand over names made of a small vocabulary, where many docs hold each word
// and the one holding the most is seldom the first in a word's postings.

import t from "tap";
import { otherNameColumns, readSample, seededRandom, withCheckDigits } from "./helpers/fixture.js";
import { builtSlice } from "./helpers/in-process-engine.js";
import { tempDir } from "./helpers/server.js";

const { header, rows } = readSample();
const LEI = header.indexOf("LEI");
const NAME = header.indexOf("Entity.LegalName");
const OTHER_NAMES = otherNameColumns(header);

// Coined words, none of them in the sample; the first ones far more common than the last.
const VOCAB = ["QORVAL", "BRESKA", "TANDRIM", "VELMOK", "ZUPRAN", "KESHTO", "MIRDAL", "OXVENT", "PLUSKE", "GRAVNO", "YTHRIS", "DWELKA"];
const rnd = seededRandom(20261201);
const pick = (): string => VOCAB[Math.floor(VOCAB.length * rnd() * rnd())];

const names: string[][] = [];
const lines = rows.slice(0, 600).map((row, i) => {
  const words = new Set<string>();
  const n = 1 + Math.floor(rnd() * 5);
  while (words.size < n) words.add(pick());
  names.push([...words]);
  const next = [...row];
  next[LEI] = withCheckDigits(`LEIDEXDROP${String(i).padStart(8, "0")}`);
  next[NAME] = [...words].join(" ");
  for (const i of OTHER_NAMES) next[i] = "";
  return next;
});

const dir = tempDir(t, "leidex-drop-");
const slice = await builtSlice(dir, "drop", header, lines);
t.teardown(() => slice.close());

t.test("fewer words are required: the most any doc holds, and every doc holding that many is found", async (t) => {
  t.ok(OTHER_NAMES.length >= 5, "other names emptied");
  let checked = 0;
  let belowAll = 0;
  for (let k = 0; k < 200; k++) {
    const words = new Set<string>();
    const n = 2 + Math.floor(rnd() * 5);
    while (words.size < n) words.add(VOCAB[Math.floor(rnd() * VOCAB.length)]);
    const query = [...words];
    const held = names.map((name) => query.filter((w) => name.includes(w)).length);
    const most = Math.max(...held);
    if (most === 0) continue;
    const answer = slice.search({
      q: query.join(" "),
      fields: "name",
      filters: {},
      facets: [],
      window: 10,
      typoMask: 0,
      dropTokens: true,
      prefix: false,
    });
    const expected = { required: most, found: held.filter((h) => h >= most).length };
    if (answer.plan.required !== expected.required || answer.found !== expected.found) {
      t.fail(`${query.join(" ")}: required ${answer.plan.required}, found ${answer.found}; expected ${JSON.stringify(expected)}`);
    }
    checked++;
    if (most < query.length) belowAll++;
  }
  t.ok(checked >= 150, `${checked} queries checked`);
  t.ok(belowAll >= 50, `${belowAll} of them needed words dropped`);
});
