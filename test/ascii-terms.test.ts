// The builder reads ASCII values as bytes (AsciiTerms) and everything else through tokenize():
// both must give the same terms, or a name would be indexed under terms a query never makes.

import t from "tap";
import { AsciiTerms, tokenize } from "../src/engine/text.js";
import { readSample, seededRandom } from "./helpers/fixture.js";

const terms = new AsciiTerms();

function byBytes(text: string): string[] | null {
  const bytes = Buffer.from(text, "utf8");
  const n = terms.terms(bytes, 0, bytes.length);
  if (n < 0) return null;
  return Array.from({ length: n }, (_, i) =>
    Buffer.from(terms.out.subarray(terms.termStart[i], terms.termStart[i] + terms.termLength[i])).toString("latin1"),
  );
}

t.test("ASCII text: the same terms as tokenize()", async (t) => {
  const cases = [
    "",
    " ",
    "A",
    "a b c",
    "S.R.L.",
    "A/S",
    "ACME S.A. DE C.V.",
    "1 A B 2",
    "B 1 C",
    "x-ray 9 Z",
    "DEUTSCHE BANK AG",
    "  leading and trailing  ",
    "tab\tand\nnewline",
    '"quoted" \\ back',
    "ABC123def",
    "a",
    "ab",
    "a1",
    "1",
    "K K K",
    "C/O J. SMITH & CO.",
    "\u0001\u007f",
  ];
  for (const text of cases) t.same(byBytes(text), tokenize(text), JSON.stringify(text));
});

t.test("ASCII values of the real sample and random ASCII: the same terms as tokenize()", async (t) => {
  const { rows } = readSample();
  let compared = 0,
    mismatched = 0;
  for (const row of rows) {
    for (const value of row) {
      const got = byBytes(value);
      if (got === null) continue;
      compared++;
      if (JSON.stringify(got) !== JSON.stringify(tokenize(value))) mismatched++;
    }
  }
  const rnd = seededRandom(7);
  const alphabet = "aZ09 .-/&'\"\\,\t\nbY";
  for (let i = 0; i < 20_000; i++) {
    let text = "";
    const length = Math.floor(rnd() * 24);
    for (let j = 0; j < length; j++)
      text += rnd() < 0.1 ? String.fromCharCode(Math.floor(rnd() * 128)) : alphabet[Math.floor(rnd() * alphabet.length)];
    compared++;
    if (JSON.stringify(byBytes(text)) !== JSON.stringify(tokenize(text))) mismatched++;
  }
  t.ok(compared > 100_000, `compared ${compared} texts`);
  t.equal(mismatched, 0, "no text tokenizes differently");
});

t.test("a text with a non-ASCII byte is left to tokenize()", async (t) => {
  for (const text of ["Société Générale", "ＪＦＥ", "ООО Ромашка", "株式会社", "ACME\u00a0LTD"]) t.equal(byBytes(text), null, text);
});

t.test("joined(): letters and digits only, in lower case; -1 when not ASCII", async (t) => {
  const joined = (text: string): string | number => {
    const bytes = Buffer.from(text, "utf8");
    const n = terms.joined(bytes, 0, bytes.length);
    return n < 0 ? n : Buffer.from(terms.out.subarray(0, n)).toString("latin1");
  };
  t.equal(joined("SW1A 1AA"), "sw1a1aa");
  t.equal(joined("75-008"), "75008");
  t.equal(joined("--"), "");
  t.equal(joined("Ü-1"), -1);
});
