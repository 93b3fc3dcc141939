// Typesense's filter_by as the engine's filters (src/engine-api/filter-by.ts): AND over fields,
// OR within one field, != as exclusions, backticks for values with operators, a scoped key's
// filter ANDed as a parsed plan; everything else a ParamError, in linear time.

import t from "tap";
import { parseFilterBy, parseScopedFilterBy } from "../../src/engine-api/filter-by.js";
import { ParamError } from "../../src/lei/search-params.js";

const plain = (text: string): Record<string, { include: string[] | null; exclude: string[] }> | null => {
  const plan = parseFilterBy(text);
  return plan === null ? null : Object.fromEntries(plan);
};

t.test("clauses, lists, exclusions, OR within a field, parentheses", async (t) => {
  t.same(plain(""), {});
  t.same(plain("country:DE"), { country: { include: ["DE"], exclude: [] } });
  t.same(plain("country:[DE, FR] && entityStatus:=ACTIVE"), {
    country: { include: ["DE", "FR"], exclude: [] },
    status: { include: ["ACTIVE"], exclude: [] },
  });
  t.same(plain("registrationStatus:!=LAPSED"), { registrationStatus: { include: null, exclude: ["LAPSED"] } });
  t.same(plain("(country:DE || country:AT) && city:`Graz && Co`"), {
    country: { include: ["DE", "AT"], exclude: [] },
    city: { include: ["Graz && Co"], exclude: [] },
  });
});

t.test("contradictions pass nothing; AND keeps what both allow, case-insensitively", async (t) => {
  t.equal(plain("country:DE && country:FR"), null);
  t.same(plain("country:[DE,FR] && country:fr"), { country: { include: ["FR"], exclude: [] } });
});

t.test("what is refused, with a reason", async (t) => {
  for (const [text, reason] of [
    ["colour:red", /not a filter field/],
    ["country", /cannot read/],
    ["country:DE ||", /ends too early/],
    ["(country:DE", /unbalanced/],
    ["country:DE)", /unbalanced|stray/],
    ["country:DE || city:Graz", /one field/],
    ["country:!=DE || country:FR", /!=/],
    ["city:`Graz", /unclosed backtick/],
    ["country:[]", /no value/],
    ["(".repeat(401) + "country:DE" + ")".repeat(401), /nest more than 400/],
  ] as [string, RegExp][]) {
    let thrown: unknown = null;
    try {
      parseFilterBy(text);
    } catch (err) {
      thrown = err;
    }
    t.ok(thrown instanceof ParamError, `${text.slice(0, 40)}: a ParamError (a 400)`);
    t.match((thrown as Error | null)?.message ?? "", reason, `${text.slice(0, 40)}: the reason`);
  }
});

t.test("a scoped key's filter is ANDed as a plan: the request cannot widen it", async (t) => {
  t.throws(
    () => parseScopedFilterBy("country:FR) || (country:DE", "country:FR"),
    /unbalanced/,
    "text that would escape the scope, were they joined as text, is refused",
  );
  const narrowed = parseScopedFilterBy("country:[FR,DE]", "country:FR");
  t.same(
    narrowed && Object.fromEntries(narrowed),
    { country: { include: ["FR"], exclude: [] } },
    "a wider request is narrowed to the key's values",
  );
});

t.test("a scoped key's filter and the request's, both applied", async (t) => {
  const plan = parseScopedFilterBy("entityStatus:ACTIVE", "country:[FR,DE]");
  t.same(plan && Object.fromEntries(plan), {
    country: { include: ["FR", "DE"], exclude: [] },
    status: { include: ["ACTIVE"], exclude: [] },
  });
  t.throws(() => parseScopedFilterBy("country:FR", "colour:red"), /scoped key's embedded filter_by/);
});
