// Legal-form names from GLEIF's ELF code list: the real sample's records carry legalFormName and
// legalFormAbbreviations beside legalForm in lookups, search hits, batches, exports and MCP
// answers, chosen by jurisdiction and legal-name language (8888: the record's OtherLegalForm);
// --legal-forms loads a newer list (and a collection built with another list is rebuilt), a
// malformed one stops the start in one line; matching folds legal forms by the list and puts
// the pasted name before its equals after folding.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import t from "tap";
import { COLUMN_OF, ELF_CSV, csvLine, legalFormModel, parseCsv, readSample, sampleModel, withCheckDigits } from "./helpers/fixture.js";
import { qs, runLeidex, startServer, tempDir, type RunningServer } from "./helpers/server.js";

const { header, rows, text } = readSample();
const col = (name: string): number => header.indexOf(name);

// Real records of the sample (data/sample/real-sample.csv).
const GMBH = "391200VK8A8FKEOTCN77"; // Arnold Schröder GmbH, DE, 2HBR
const TRUST = "2138002Z2N3GIS5ZUN17"; // THE GEDROYC FAMILY TRUST OF 2022, GB, 8888 "Trust"
const BE_FR = "254900GSNKM4F03KHS08"; // Schmit-de Suray, BE, R85P, legal name in fr
const BE_NL = "254900HVPT0ESVF6EP22"; // DERVARO, BE, 3W7E, legal name in nl
const CRUNA = "815600D78F26B0CE2655"; // CRUNA S.R.L., IT

/** A copy of a real row with another LEI, name and form: the synthetic records below. */
function row(n: number, over: Record<string, string>, of = GMBH, prefix = "LEIDEXELF0"): { lei: string; line: string } {
  const r = [...rows.find((x) => x[col(COLUMN_OF.lei)] === of)!];
  const lei = withCheckDigits(`${prefix}${String(n).padStart(18 - prefix.length, "0")}`);
  r[col(COLUMN_OF.lei)] = lei;
  for (const [k, v] of Object.entries(over)) r[col(k)] = v;
  return { lei, line: csvLine(r) };
}
// The real CRUNA S.R.L.'s twin as the registry has such twins: the same but for "SRL". The
// engine ranks names equal after folding (S.R.L. = SRL) by LEI, and this LEI sorts first.
const CRUNA_PLAIN = row(2, { [COLUMN_OF.legalName]: "CRUNA SRL" }, CRUNA, "00000000CRUNA");
const UNKNOWN_CODE = row(3, { [COLUMN_OF.legalName]: "Zorblatt Unbekannt GmbH", [COLUMN_OF.legalForm]: "ZZ99" });
const BARE_8888 = row(4, {
  [COLUMN_OF.legalName]: "Zorblatt Ohneform",
  [COLUMN_OF.legalForm]: "8888",
  "Entity.LegalForm.OtherLegalForm": "",
});
const NEW_CODE = row(5, { [COLUMN_OF.legalName]: "Zorblatt Neuform KG", [COLUMN_OF.legalForm]: "ZZ01" });
const SYNTH = [CRUNA_PLAIN, UNKNOWN_CODE, BARE_8888, NEW_CODE];

const dir = tempDir(t);
const source = join(dir, "with-forms.csv");
writeFileSync(source, `${text.trimEnd()}\r\n${SYNTH.map((s) => s.line).join("\r\n")}\r\n`);

const srv = await startServer(t, { source, rateLimit: 0, shards: 1 });

const entity = async (s: RunningServer, lei: string): Promise<Record<string, string | null>> => {
  const r = await s.get(`/v1/entities/${lei}`);
  if (r.status !== 200) throw new Error(`${lei}: ${r.status} ${r.text}`);
  return r.body;
};

t.test("lookups name the form by the record's country and language", async (t) => {
  const gmbh = await entity(srv, GMBH);
  t.equal(gmbh.legalForm, "2HBR");
  t.equal(gmbh.legalFormName, "Gesellschaft mit beschränkter Haftung");
  t.equal(gmbh.legalFormAbbreviations, "GmbH");
  t.same(Object.keys(gmbh).slice(5, 8), ["legalForm", "legalFormName", "legalFormAbbreviations"], "beside legalForm");

  const trust = await entity(srv, TRUST);
  t.same([trust.legalForm, trust.legalFormName, trust.legalFormAbbreviations], ["8888", "Trust", null], "8888: OtherLegalForm");

  // R85P has Dutch, French and German rows: the French legal name gets the French one
  const fr = await entity(srv, BE_FR);
  t.same([fr.legalFormName, fr.legalFormAbbreviations], ["Société anonyme", "SA"]);
  const nl = await entity(srv, BE_NL);
  t.same([nl.legalFormName, nl.legalFormAbbreviations], ["Besloten Vennootschap", "BV"]);

  for (const [lei, why] of [
    [UNKNOWN_CODE.lei, "a code the list does not know"],
    [BARE_8888.lei, "8888 without OtherLegalForm"],
  ]) {
    const e = await entity(srv, lei);
    t.same([e.legalFormName, e.legalFormAbbreviations], [null, null], `${why}: null, served as usual`);
  }
});

t.test("every record of the sample, as the list says (batch lookups)", async (t) => {
  const model = sampleModel();
  let named = 0;
  for (let i = 0; i < model.length; i += 1000) {
    const chunk = model.slice(i, i + 1000);
    const r = await srv.get("/v1/entities/batch", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ leis: chunk.map((m) => m.entity.lei) }),
    });
    t.equal(r.status, 200);
    for (const [k, res] of (r.body.results as { entity: Record<string, string | null> }[]).entries()) {
      const want = chunk[k].entity;
      if (res.entity.legalFormName !== want.legalFormName || res.entity.legalFormAbbreviations !== want.legalFormAbbreviations)
        t.fail(`${want.lei} (${want.legalForm}): ${res.entity.legalFormName} / ${res.entity.legalFormAbbreviations}`);
      if (res.entity.legalFormName !== null) named++;
    }
  }
  const coded = model.filter((m) => m.entity.legalForm !== null && m.entity.legalForm !== "9999" && m.entity.legalForm !== "8888");
  t.ok(
    coded.every((m) => m.entity.legalFormName !== null),
    "every code of the sample is on the list",
  );
  t.ok(named >= coded.length, `${named} records named`);
});

t.test("search hits and exports carry the names", async (t) => {
  const hits = await srv.get(`/v1/entities${qs({ q: "Arnold Schröder GmbH", limit: 3 })}`);
  const hit = hits.body.results.find((e: { lei: string }) => e.lei === GMBH);
  t.equal(hit?.legalFormName, "Gesellschaft mit beschränkter Haftung");
  const exported = await srv.get(`/v1/entities/export${qs({ q: "Schmit-de Suray" })}`);
  const line = exported.text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .find((e: { lei: string }) => e.lei === BE_FR);
  t.equal(line?.legalFormName, "Société anonyme");
});

t.test("MCP answers carry the name, in the structured and the text answer", async (t) => {
  const r = await srv.get("/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_legal_entity", arguments: { lei: GMBH } } }),
  });
  t.equal(r.status, 200);
  const result = r.body.result;
  t.equal(result.structuredContent.legalFormName, "Gesellschaft mit beschränkter Haftung");
  t.equal(result.structuredContent.legalFormAbbreviations, "GmbH");
  t.match(result.content[0].text, /legal form: Gesellschaft mit beschränkter Haftung \(GmbH; ELF 2HBR\)/);
});

const match = async (s: RunningServer, rowsIn: object[]): Promise<{ verdict: string; candidates: { lei: string; score: number }[] }[]> => {
  const r = await s.get("/v1/match", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ rows: rowsIn, limit: 5 }),
  });
  if (r.status !== 200) throw new Error(`match: ${r.status} ${r.text}`);
  return r.body.results;
};

t.test("a pasted name equal to a record ranks it before its equals after folding", async (t) => {
  const [dots, plain, dotsIt] = await match(srv, [
    { name: "CRUNA S.R.L." },
    { name: "CRUNA SRL" },
    { name: "CRUNA S.R.L.", country: "IT" },
  ]);
  t.same(
    dots.candidates.slice(0, 2).map((c) => c.lei),
    [CRUNA, CRUNA_PLAIN.lei],
    "CRUNA S.R.L. first for CRUNA S.R.L.",
  );
  t.equal(dots.candidates[0].score, dots.candidates[1].score, "the two are equal after folding S.R.L. = SRL");
  t.same(
    plain.candidates.slice(0, 2).map((c) => c.lei),
    [CRUNA_PLAIN.lei, CRUNA],
    "CRUNA SRL first for CRUNA SRL",
  );
  t.equal(dotsIt.candidates[0].lei, CRUNA, "with the country given too");
  // the search's first page too: both are exact names to the engine, the stored names decide
  for (const [q, first, second] of [
    ["CRUNA S.R.L.", CRUNA, CRUNA_PLAIN.lei],
    ["CRUNA SRL", CRUNA_PLAIN.lei, CRUNA],
  ]) {
    const r = await srv.get(`/v1/entities${qs({ q, limit: 5 })}`);
    const leis = (r.body as { results: { lei: string }[] }).results.map((h) => h.lei);
    t.same(leis.slice(0, 2), [first, second], `search for ${q}: the record named so first`);
  }
});

t.test("matching folds the country's legal forms from the list", async (t) => {
  const [spelled, typo] = await match(srv, [
    { name: "Arnold Schröder Gesellschaft mit beschränkter Haftung", country: "DE" },
    { name: "Arnold Schröder Aktiengesellschaft", country: "DE" },
  ]);
  t.equal(spelled.candidates[0].lei, GMBH);
  t.equal(spelled.candidates[0].score, 1, "the spelled-out form is GmbH in Germany");
  t.equal(spelled.verdict, "match");
  t.equal(typo.candidates[0].lei, GMBH, "another German form: the same entity first");
  t.ok(typo.candidates[0].score < 1 && typo.candidates[0].score >= 0.9, `the forms differ a little: ${typo.candidates[0].score}`);
});

t.test("--legal-forms: a newer list names the forms; another list rebuilds the collection", async (t) => {
  const [elfHeader, ...elfRows] = parseCsv(readFileSync(ELF_CSV, "utf8"));
  const c = (name: string): number => elfHeader.indexOf(name);
  const quote = (r: string[]): string => r.map((f) => `"${f.replace(/"/g, '""')}"`).join(",");
  const renamed = elfRows.map((r) =>
    r[c("ELF Code")] === "2HBR" ? r.map((f, i) => (i === c("Entity Legal Form name Local name") ? `${f} (v1.7)` : f)) : r,
  );
  const added = [...elfRows.find((r) => r[c("ELF Code")] === "8Z6G")!];
  added[c("ELF Code")] = "ZZ01";
  added[c("Entity Legal Form name Local name")] = "Neue Kommanditform";
  added[c("Abbreviations Local language")] = "NKF;N.K.F.";
  // the newer list's columns in another order: they are found by name
  const order = elfHeader.map((_, i) => i).reverse();
  const newer = join(dir, "elf-v1.7.csv");
  writeFileSync(newer, [elfHeader, ...renamed, added].map((r) => quote(order.map((i) => r[i]))).join("\n") + "\n");

  const dataDir = tempDir(t);
  const withNewer = await startServer(t, { source, rateLimit: 0, shards: 1, dataDir, args: ["--legal-forms", newer] });
  t.equal((await entity(withNewer, GMBH)).legalFormName, "Gesellschaft mit beschränkter Haftung (v1.7)");
  const fresh = await entity(withNewer, NEW_CODE.lei);
  t.same([fresh.legalFormName, fresh.legalFormAbbreviations], ["Neue Kommanditform", "NKF; N.K.F."], "a code only the newer list has");
  t.same(legalFormModel({ "Entity.LegalForm.EntityLegalFormCode": "ZZ01" }), { legalFormName: null, legalFormAbbreviations: null });
  await withNewer.stop();

  // the same data directory with the bundled list: the collection is served, and rebuilt meanwhile
  const again = await startServer(t, { source, rateLimit: 0, shards: 1, dataDir });
  const deadline = Date.now() + 120_000;
  while ((await entity(again, GMBH)).legalFormName !== "Gesellschaft mit beschränkter Haftung" && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 200));
  t.equal((await entity(again, GMBH)).legalFormName, "Gesellschaft mit beschränkter Haftung", "the bundled list's names, once rebuilt");
  t.equal((await entity(again, NEW_CODE.lei)).legalFormName, null);
  t.match(again.stdout(), /built with another legal-form list: rebuilding it from /);
  t.match(again.stdout(), /serving \S+ \(\d+ records\) from its segments/, "served from its segments meanwhile");
  await again.stop();
});

t.test("a malformed --legal-forms file stops the start in one line", async (t) => {
  const good = readFileSync(ELF_CSV, "utf8").split("\n");
  const cases: [string, string | null, RegExp][] = [
    ["missing.csv", null, /^--legal-forms: cannot read .*missing\.csv \(ENOENT\)$/],
    ["no-header.csv", `"LEI","Name"\n"x","y"\n`, /^--legal-forms: .*no-header\.csv is not an ELF code list: its header lacks "ELF Code"/],
    [
      "short-row.csv",
      [good[0], good[1], `"2HBR","Germany","DE"`, ""].join("\n"),
      /^--legal-forms: .*short-row\.csv line 3: 3 fields where the header has 16$/,
    ],
    [
      "open-quote.csv",
      [good[0], `"2HBR","Germany`].join("\n"),
      /^--legal-forms: .*open-quote\.csv line 2: a quoted field is never closed$/,
    ],
    [
      "bad-code.csv",
      [good[0], good.find((l) => l.startsWith(`"2HBR"`))!.replace(`"2HBR"`, `"2HBR!"`)].join("\n"),
      /line 2: "2HBR!" is not an ELF code/,
    ],
    ["empty.csv", "", /^--legal-forms: .*empty\.csv is empty$/],
    ["latin1.bin", null, /is not UTF-8 text$/],
  ];
  for (const [name, body, want] of cases) {
    const file = join(dir, name);
    if (name === "latin1.bin") writeFileSync(file, Buffer.concat([Buffer.from(good[0] + "\n"), Buffer.from([0x22, 0xe4, 0x22, 0x0a])]));
    else if (body !== null) writeFileSync(file, body);
    const run = await runLeidex([
      "--source",
      "sample",
      "--data-dir",
      tempDir(t),
      "--port",
      "0",
      "--host",
      "127.0.0.1",
      "--legal-forms",
      file,
    ]);
    t.equal(run.code, 1, `${name}: exit 1`);
    const lines = run.stderr.trim().split("\n");
    t.equal(lines.length, 1, `${name}: one line`);
    t.match(lines[0], want, `${name}: says what is wrong`);
    t.notMatch(run.stderr, /\n\s+at /, `${name}: no stack`);
    t.notMatch(run.stdout, /listening on/, `${name}: never serves`);
  }
});
