import t from "tap";
import { shapesOf } from "../../src/lei/warm-up.js";

t.test("a name's warm-up queries: whole, first word, a word and the start of the next, a typo", async (t) => {
  t.same(shapesOf("DEUTSCHE BANK AG"), ["DEUTSCHE BANK AG", "DEUTSCHE", "DEUTSCHE BAN", "DUETSCHE BANK AG"]);
  t.same(shapesOf("ACME"), ["ACME"], "one short word: the name alone, once");
  t.same(shapesOf("TRUSTEES"), ["TRUSTEES", "TURSTEES"], "one long word: the name and its typo");
  t.same(shapesOf("   "), [], "no words, no queries");
});
