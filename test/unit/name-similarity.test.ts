// Name similarity for entity matching (src/match/name-similarity.ts), with each country's legal
// forms from the bundled ELF code list (src/match/legal-form-words.ts), and the verdict
// thresholds (src/match/matcher.ts).

import t from "tap";
import { analyseName, nameSimilarity, withoutLegalForms } from "../../src/match/name-similarity.js";
import { verdictOf, type Candidate } from "../../src/match/matcher.js";
import { LegalFormWords } from "../../src/match/legal-form-words.js";

const words = LegalFormWords.bundled();
const sim = (a: string, b: string, country: string): number =>
  nameSimilarity(analyseName(a, words.of(country)), analyseName(b, words.of(country)));

t.test("legal forms in one spelling, country by country, apart from the distinctive words", async (t) => {
  t.same(analyseName("Acme Holdings Limited", words.of("GB")), { core: ["acme", "holdings"], forms: ["ltd"] });
  t.same(analyseName("Deutsche Bank Aktiengesellschaft", words.of("DE")), { core: ["deutsche", "bank"], forms: ["ag"] });
  t.same(analyseName("Bâtiments Société Anonyme", words.of("FR")), { core: ["batiments"], forms: ["sa"] });
  t.same(analyseName("Müller Gesellschaft mit beschränkter Haftung", words.of("DE")), { core: ["muller"], forms: ["gmbh"] });
  t.same(analyseName("Rossi S.p.A.", words.of("IT")), { core: ["rossi"], forms: ["spa"] });
  t.same(analyseName("Nowak Sp. z o.o.", words.of("PL")), { core: ["nowak"], forms: ["sp zoo"] }, "a form of several words is one");
  t.same(analyseName("Cruna S.R.L.", words.of("IT")), analyseName("Cruna SRL", words.of("IT")));
  t.same(analyseName("Acme Corp.", words.of("US-DE")), { core: ["acme"], forms: ["inc"] }, "a subdivision reads its country's forms");
  t.same(analyseName("Acme Inc.", words.of("US")), analyseName("Acme Corp.", words.of("US")), "as its states list them");
  t.same(
    analyseName("First Citizens Bank", words.of("US")),
    { core: ["first", "citizens", "bank"], forms: [] },
    "a form's name is a spelling only where its abbreviation abbreviates it (North Carolina's Bank is abbreviated corp.)",
  );
  t.same(analyseName("Société Anonyme", words.of("FR")), { core: ["sa"], forms: [] }, "a name of legal-form words only keeps them");
  t.same(analyseName("Acme AG", words.of("ZZ")), { core: ["acme"], forms: ["ag"] }, "an unknown country: every country's forms");
  t.same(
    analyseName("Acme Limited", words.of("IN")),
    analyseName("Acme Ltd", words.of("IN")),
    "India's Ltd, spelt out as English rows spell it",
  );
  t.same(analyseName("SITL s.r.o.", words.of("CZ")).core, ["sitl", "sro"], "a form the list gives no abbreviation for stays a word");
  t.same(
    analyseName("Nowak Spółka z ograniczoną odopwiedzialnością", words.of("PL")),
    { core: ["nowak"], forms: ["sp zoo"] },
    "a form's words within a typo",
  );
  t.equal(withoutLegalForms("Acme Holdings Ltd.", words.of("GB")), "acme holdings");
  t.equal(withoutLegalForms("Acme Holdings", words.of("GB")), null, "no legal form: nothing to strip");
  t.equal(withoutLegalForms("Limited", words.of("GB")), null, "nothing would be left");
});

t.test("similarity: equal spellings 1, typos close, near-twins below the exact name, strangers far", async (t) => {
  t.equal(sim("ACME HOLDINGS LTD.", "Acme Holdings Limited", "GB"), 1);
  t.equal(sim("Lino Engineering Aktiebolag", "Lino Engineering AB", "SE"), 1);
  t.equal(sim("Lino Engineering", "Lino Engineering AB", "SE"), 1, "a side without a legal form does not count against");
  const typo = sim("Acme Holdigns", "Acme Holdings", "GB");
  t.ok(typo > 0.8 && typo < 1, `a typo: ${typo}`);
  t.ok(sim("Acme Holding", "Acme Holding", "GB") > sim("Acme Holding", "Acme Holdings", "GB"), "the exact name beats its near-twin");
  t.ok(sim("Acme GmbH", "Acme AG", "DE") < 1, "legal forms that differ cost a little");
  t.ok(sim("Acme GmbH", "Acme AG", "DE") >= 0.9, "but only a little");
  t.ok(sim("Acme Trading", "Zenith Mining", "GB") <= 0.1, "strangers");
});

t.test("verdicts: match needs the score and the lead; close ones are ambiguous", async (t) => {
  const c = (score: number): Candidate => ({ score }) as Candidate;
  t.equal(verdictOf([]), "none");
  t.equal(verdictOf([c(0.95)]), "match");
  t.equal(verdictOf([c(0.95), c(0.8)]), "match");
  t.equal(verdictOf([c(0.95), c(0.93)]), "ambiguous");
  t.equal(verdictOf([c(0.7), c(0.69)]), "possible");
  t.equal(verdictOf([c(0.3)]), "none");
});
