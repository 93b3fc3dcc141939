// Name similarity for entity matching (src/match/name-similarity.ts) and the verdict thresholds
// (src/match/matcher.ts).

import t from "tap";
import { analyseName, nameSimilarity, withoutLegalForms } from "../../src/match/name-similarity.js";
import { verdictOf, type Candidate } from "../../src/match/matcher.js";

const sim = (a: string, b: string): number => nameSimilarity(analyseName(a), analyseName(b));

t.test("legal forms in one spelling, apart from the distinctive words", async (t) => {
  t.same(analyseName("Acme Holdings Limited"), { core: ["acme", "holdings"], forms: ["ltd"] });
  t.same(analyseName("Deutsche Bank Aktiengesellschaft"), { core: ["deutsche", "bank"], forms: ["ag"] });
  t.same(analyseName("Bâtiments Société Anonyme"), { core: ["batiments"], forms: ["sa"] });
  t.same(analyseName("Müller Gesellschaft mit beschränkter Haftung"), { core: ["muller"], forms: ["gmbh"] });
  t.same(analyseName("Rossi S.p.A."), { core: ["rossi"], forms: ["spa"] });
  t.equal(withoutLegalForms("Acme Holdings Ltd."), "acme holdings");
  t.equal(withoutLegalForms("Acme Holdings"), null, "no legal form: nothing to strip");
  t.equal(withoutLegalForms("Limited"), null, "nothing would be left");
});

t.test("similarity: equal spellings 1, typos close, near-twins below the exact name, strangers far", async (t) => {
  t.equal(sim("ACME HOLDINGS LTD.", "Acme Holdings Limited"), 1);
  t.equal(sim("Lino Engineering Aktiebolag", "Lino Engineering AB"), 1);
  t.equal(sim("Lino Engineering", "Lino Engineering AB"), 1, "a side without a legal form does not count against");
  const typo = sim("Acme Holdigns", "Acme Holdings");
  t.ok(typo > 0.8 && typo < 1, `a typo: ${typo}`);
  t.ok(sim("Acme Holding", "Acme Holding") > sim("Acme Holding", "Acme Holdings"), "the exact name beats its near-twin");
  t.ok(sim("Acme GmbH", "Acme AG") < 1, "legal forms that differ cost a little");
  t.ok(sim("Acme GmbH", "Acme AG") >= 0.9, "but only a little");
  t.ok(sim("Acme Trading", "Zenith Mining") <= 0.1, "strangers");
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
