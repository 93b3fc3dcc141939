// Area A endpoints other than the search parameters: LEI lookup and the field mapping, facet
// listing, stats, the OpenAPI document, headers (rate limit, CORS, gzip), wrong methods and
// paths, and ugly input the server must survive. One server on the fixture CSV.

import t from "tap";
import { connect } from "node:net";
import { gunzipSync } from "node:zlib";
import {
  BAD_CHECK_LEI,
  ENTITY_KEYS,
  leiValid,
  seededRandom,
  shuffle,
  withCheckDigits,
  writeFixture,
  type ModelRecord,
} from "./helpers/fixture.js";
import { facetCounts, isSortedFacet } from "./helpers/model.js";
import { pMap, rawRequest, startServer, tempDir, type Got } from "./helpers/server.js";

const RATE_LIMIT = 1_000_000;
const fx = writeFixture(tempDir(t));
const srv = await startServer(t, { source: fx.csv, rateLimit: RATE_LIMIT, rateWindow: 60 });
const synth = (name: string): ModelRecord => fx.synthetic.find((r) => r.entity.legalName === name)!;

/** Every status seen by this file: the server must never answer 5xx to anything we send. */
const statuses: { path: string; status: number }[] = [];
const get = async (path: string, init?: RequestInit): Promise<Got> => {
  const r = await srv.get(path, init);
  statuses.push({ path, status: r.status });
  return r;
};
const isErrorBody = (r: Got): boolean =>
  r.body !== undefined && typeof r.body.error === "string" && r.body.error.length > 0 && Object.keys(r.body).length === 1;

t.test("lookup returns exactly the CSV row, mapped field by field", async (t) => {
  const rnd = seededRandom(20);
  const picks = [...shuffle(fx.model.slice(0, fx.model.length - fx.synthetic.length), rnd).slice(0, 300), ...fx.synthetic];
  const mismatches: string[] = [];
  await pMap(picks, 6, async (rec) => {
    const r = await get(`/v1/entities/${rec.entity.lei}`);
    if (r.status !== 200) {
      mismatches.push(`${rec.entity.lei}: ${r.status}`);
      return;
    }
    if (
      JSON.stringify(Object.keys(r.body)) !== JSON.stringify(ENTITY_KEYS) &&
      Object.keys(r.body).sort().join() !== [...ENTITY_KEYS].sort().join()
    ) {
      mismatches.push(`${rec.entity.lei}: keys ${Object.keys(r.body).join(",")}`);
    }
    for (const k of ENTITY_KEYS) {
      if (r.body[k] !== rec.entity[k])
        mismatches.push(`${rec.entity.lei}.${k}: got ${JSON.stringify(r.body[k])} want ${JSON.stringify(rec.entity[k])}`);
    }
  });
  t.same(mismatches.slice(0, 20), [], `${picks.length} lookups equal their CSV rows`);
});

t.test("field mapping details", async (t) => {
  const issued = synth("Vorlandia Kraftwerk Gesellschaft mbH");
  const e = await srv.json(`/v1/entities/${issued.entity.lei}`);
  t.same(
    e,
    {
      lei: issued.entity.lei,
      legalName: "Vorlandia Kraftwerk Gesellschaft mbH",
      entityStatus: "ACTIVE",
      entityCategory: "GENERAL",
      registrationStatus: "ISSUED",
      legalForm: "2HBR",
      legalFormName: "Gesellschaft mit beschränkter Haftung",
      legalFormAbbreviations: "GmbH",
      jurisdiction: "DE",
      country: "DE",
      region: "DE-BY",
      city: "München",
      postalCode: "80331",
      legalAddress: "Marienplatz 1",
      hqAddress: "Leopoldstraße 99",
      managingLou: issued.entity.managingLou,
      registeredAt: issued.raw["Registration.InitialRegistrationDate"],
      lastUpdatedAt: issued.raw["Registration.LastUpdateDate"],
      nextRenewalDate: issued.raw["Registration.NextRenewalDate"],
      successorLeis: null,
      // loaded without Level 2: no parents
      directParent: null,
      ultimateParent: null,
    },
    "every column lands in its field",
  );

  const same = await srv.json(`/v1/entities/${synth("Samehouse Properties S.A.").entity.lei}`);
  t.equal(same.legalAddress, "Rue du Marché 7");
  t.equal(same.hqAddress, null, "HQ line equal to the legal line -> hqAddress null");

  const nul = await srv.json(`/v1/entities/${synth("Nullstatus Verwaltungs KG").entity.lei}`);
  t.equal(nul.entityStatus, null, "the literal NULL entity status -> null");
  t.not(nul.entityStatus, "NULL");

  const quoted = await srv.json(`/v1/entities/${synth('Qwerty "Quoted", Comma & Sons Ltd').entity.lei}`);
  t.equal(quoted.legalName, 'Qwerty "Quoted", Comma & Sons Ltd', "quotes and commas survive");
  t.equal(quoted.legalAddress, 'Unit 5, "The Old Mill"\nSecond line after a newline', "a quoted newline survives");

  const io = await srv.json(`/v1/entities/${synth("International Zeltrane Commodities Organization").entity.lei}`);
  t.equal(io.legalForm, null, "empty column -> null");
  t.equal(io.legalFormName, null, "no code, no name");
  t.equal(io.entityCategory, "INTERNATIONAL_ORGANIZATION");
  t.equal(io.region, "CH-GE");

  // real rows: HQ equal to legal (null) and different (kept), values exactly as published
  const hqSame = fx.model.find(
    (r) =>
      r.raw["Entity.HeadquartersAddress.FirstAddressLine"] !== "" &&
      r.raw["Entity.HeadquartersAddress.FirstAddressLine"] === r.raw["Entity.LegalAddress.FirstAddressLine"],
  )!;
  t.equal((await srv.json(`/v1/entities/${hqSame.entity.lei}`)).hqAddress, null, `real row ${hqSame.entity.lei}: same HQ line -> null`);
  const hqDiff = fx.model.find(
    (r) =>
      r.raw["Entity.HeadquartersAddress.FirstAddressLine"] !== "" &&
      r.raw["Entity.LegalAddress.FirstAddressLine"] !== "" &&
      r.raw["Entity.HeadquartersAddress.FirstAddressLine"] !== r.raw["Entity.LegalAddress.FirstAddressLine"],
  )!;
  t.equal((await srv.json(`/v1/entities/${hqDiff.entity.lei}`)).hqAddress, hqDiff.raw["Entity.HeadquartersAddress.FirstAddressLine"]);
  const quotedName = fx.model.find((r) => r.entity.legalName?.startsWith('"'));
  if (quotedName)
    t.equal(
      (await srv.json(`/v1/entities/${quotedName.entity.lei}`)).legalName,
      quotedName.entity.legalName,
      "leading quote kept as published",
    );
  const upperCity = fx.model.find((r) => r.entity.city === "WILMINGTON")!;
  t.equal((await srv.json(`/v1/entities/${upperCity.entity.lei}`)).city, "WILMINGTON", "case kept as published");
  const dated = fx.model.find((r) => /[+-]\d\d:\d\d$/.test(r.raw["Registration.LastUpdateDate"]))!;
  t.equal(
    (await srv.json(`/v1/entities/${dated.entity.lei}`)).lastUpdatedAt,
    dated.raw["Registration.LastUpdateDate"],
    "timestamps not reformatted",
  );
  const han = fx.model.find((r) => r.entity.legalName === "ＪＦＥ商事株式会社")!;
  t.equal(
    (await srv.json(`/v1/entities/${han.entity.lei}`)).legalName,
    "ＪＦＥ商事株式会社",
    "full-width name not normalised in the output",
  );
});

t.test("lookup: case, check digits, malformed and absent LEIs", async (t) => {
  const rec = fx.model[42];
  const upper = await get(`/v1/entities/${rec.entity.lei}`);
  for (const variant of [rec.entity.lei.toLowerCase(), rec.entity.lei.slice(0, 10).toLowerCase() + rec.entity.lei.slice(10)]) {
    const r = await get(`/v1/entities/${variant}`);
    t.equal(r.status, 200, `${variant} found`);
    t.same(r.body, upper.body, "same document whatever the case");
    t.equal(r.body.lei, rec.entity.lei, "lei comes back upper-case");
  }

  t.notOk(leiValid(BAD_CHECK_LEI), "fixture LEI really fails MOD 97-10");
  const bad = await get(`/v1/entities/${BAD_CHECK_LEI}`);
  t.equal(bad.status, 200, "bad check digits but in the data -> 200");
  t.equal(bad.body.legalName, "Checkdigit Misfit Holdings Ltd");
  t.equal((await get(`/v1/entities/${BAD_CHECK_LEI.toLowerCase()}`)).status, 200, "and case-insensitive");

  // one character changed from a real LEI: fails the check digits and is not in the data -> 400
  const typo = rec.entity.lei.slice(0, 5) + (rec.entity.lei[5] === "7" ? "8" : "7") + rec.entity.lei.slice(6);
  t.notOk(leiValid(typo));
  const typoR = await get(`/v1/entities/${typo}`);
  t.equal(typoR.status, 400, "mistyped LEI -> 400, never 404");
  t.ok(isErrorBody(typoR));
  t.match(typoR.body.error, /check digit/i, "says check digits");

  const absent = withCheckDigits("LEIDEXT0STABSENT00");
  t.ok(leiValid(absent));
  const absentR = await get(`/v1/entities/${absent}`);
  t.equal(absentR.status, 404, "valid LEI not in the data -> 404");
  t.ok(isErrorBody(absentR), "404 has an error body");

  const malformed = [
    "abc",
    rec.entity.lei.slice(0, 19),
    rec.entity.lei + "0",
    rec.entity.lei.slice(0, 18) + "AB",
    rec.entity.lei.slice(0, 17) + "-12",
    rec.entity.lei.slice(0, 18) + "1",
    "%20".repeat(20),
    "%E2%82%AC".repeat(20),
    "%F0%9F%98%80",
    "%ZZ",
    "%",
    "x".repeat(3000),
    "..%2F..%2Fetc%2Fpasswd",
    "5493001KJTIIGC8Y1R1%00",
    "ＡＢＣＤＥＦＧＨＩＪＫＬＭＮＯＰＱＲ１２",
    "549300" + "é".repeat(12) + "12",
  ];
  for (const m of malformed) {
    const r = await get(`/v1/entities/${m}`);
    t.equal(r.status, 400, `malformed ${m.slice(0, 40)} -> 400`);
    t.ok(isErrorBody(r), `malformed ${m.slice(0, 40)} -> error body`);
  }
});

t.test("GET /v1/facets/{field}: a bare, sorted array equal to the data", async (t) => {
  for (const field of ["country", "jurisdiction", "status", "registrationStatus", "category"]) {
    const r = await get(`/v1/facets/${field}`);
    t.equal(r.status, 200, field);
    t.ok(Array.isArray(r.body), `${field}: bare array`);
    t.ok(
      r.body.every((v: any) => Object.keys(v).sort().join() === "count,value" && typeof v.value === "string" && Number.isInteger(v.count)),
      `${field}: {value,count}`,
    );
    t.ok(isSortedFacet(r.body), `${field}: count desc then value`);
    t.same(r.body, facetCounts(fx.model, field), `${field}: counts equal the data`);
  }
  const cat = (await get("/v1/facets/category")).body.map((v: any) => v.value);
  t.ok(cat.includes("BRANCH") && cat.includes("INTERNATIONAL_ORGANIZATION"), "synthetic categories listed");
  const st = (await get("/v1/facets/status")).body;
  t.same(st.map((v: any) => v.value).sort(), ["ACTIVE", "INACTIVE"], "NULL status is not a facet value");
  for (const field of ["city", "legalForm", "managingLou", "region", "Country", "lei", "nope", "%00", "%E2%82%AC"]) {
    const r = await get(`/v1/facets/${field}`);
    t.equal(r.status, 400, `/v1/facets/${field} -> 400`);
    t.ok(isErrorBody(r));
  }
});

t.test("GET /v1/stats", async (t) => {
  const s = (await get("/v1/stats")).body;
  t.same(Object.keys(s).sort(), [
    "changeDetectionSeconds",
    "changesDetected",
    "delta",
    "downloadSeconds",
    "ingestSeconds",
    "license",
    "licenseActive",
    "published",
    "records",
    "source",
  ]);
  t.equal(s.changesDetected, null, "a first load is compared with nothing");
  t.equal(s.delta, null, "a full load of a file applied no GLEIF delta");
  t.equal(s.licenseActive, false, "no licence activated");
  t.equal(s.records, fx.model.length, "records = rows");
  t.equal(s.license, "CC0 1.0");
  t.type(s.source, "string");
  t.notMatch(s.source, /bundled/i, "a --source file is not called the bundled sample");
  t.match(s.source, /fixture\.csv/, "names the loaded file");
  t.equal(s.published, null, "a file name without a publication stamp -> published null");
  t.equal(s.downloadSeconds, null, "a local file was not downloaded");
  t.ok(typeof s.ingestSeconds === "number" && s.ingestSeconds > 0 && s.ingestSeconds < 300, "ingestSeconds is a plausible number");
});

t.test("GET /openapi.json describes the API", async (t) => {
  const r = await get("/openapi.json");
  t.equal(r.status, 200);
  const doc = r.body;
  t.match(doc.openapi, /^3\./);
  t.equal(doc.info.version, "1.0.0", "area A is version 1.0.0");
  for (const p of ["/v1/entities", "/v1/entities/{lei}", "/v1/facets/{field}", "/v1/stats"]) t.ok(doc.paths[p]?.get, `documents GET ${p}`);
  const names = doc.paths["/v1/entities"].get.parameters.map((p: any) => p.name).sort();
  t.same(
    names,
    [
      "category",
      "city",
      "country",
      "facets",
      "fields",
      "jurisdiction",
      "legalForm",
      "limit",
      "managingLou",
      "page",
      "q",
      "region",
      "registrationStatus",
      "status",
      "directParent",
      "ultimateParent",
      "hasParent",
    ].sort(),
  );
  t.same(Object.keys(doc.components.schemas.LegalEntity.properties).sort(), [...ENTITY_KEYS].sort(), "LegalEntity fields");
  t.same(doc.components.schemas.SearchPage.required.sort(), ["found", "limit", "outOf", "page", "results", "searchTimeMs"]);
  t.same(doc.components.schemas.ApiError.required, ["error"]);
});

t.test("rate-limit headers on every area A response, CORS on every area A response", async (t) => {
  const paths: [string, number][] = [
    ["/v1/entities?q=bank", 200],
    ["/v1/entities?nope=1", 400],
    ["/v1/entities?page=0", 400],
    [`/v1/entities/${fx.model[7].entity.lei}`, 200],
    ["/v1/entities/abc", 400],
    [`/v1/entities/${withCheckDigits("LEIDEXT0STABSENT00")}`, 404],
    ["/v1/facets/country", 200],
    ["/v1/facets/city", 400],
    ["/v1/stats", 200],
  ];
  for (const [path, status] of paths) {
    const r = await get(path, { headers: { Origin: "https://example.org" } });
    t.equal(r.status, status, path);
    t.equal(r.headers.get("x-ratelimit-limit"), String(RATE_LIMIT), `${path}: X-RateLimit-Limit`);
    const remaining = Number(r.headers.get("x-ratelimit-remaining"));
    t.ok(
      Number.isInteger(remaining) && remaining >= 0 && remaining < RATE_LIMIT,
      `${path}: X-RateLimit-Remaining is an integer below the limit`,
    );
    t.equal(r.headers.get("access-control-allow-origin"), "*", `${path}: CORS`);
    t.match(r.headers.get("content-type") ?? "", /^application\/json/, `${path}: JSON`);
  }
});

t.test("a 405 on an area A path carries the rate-limit headers too", async (t) => {
  const r = await get("/v1/entities", { method: "POST" });
  t.equal(r.status, 405);
  t.ok(r.headers.get("x-ratelimit-limit"), "X-RateLimit-Limit");
  t.ok(r.headers.get("x-ratelimit-remaining"), "X-RateLimit-Remaining");
});

t.test("OPTIONS preflight -> 204 with CORS headers", async (t) => {
  for (const path of ["/v1/entities", `/v1/entities/${fx.model[3].entity.lei}`, "/v1/facets/country", "/v1/stats"]) {
    const r = await get(path, {
      method: "OPTIONS",
      headers: { Origin: "https://example.org", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "accept" },
    });
    t.equal(r.status, 204, `${path}: 204`);
    t.equal(r.text, "", "no body");
    t.equal(r.headers.get("access-control-allow-origin"), "*");
    t.match(r.headers.get("access-control-allow-methods") ?? "", /\bGET\b/, "allows GET");
  }
});

t.test("other methods on API paths -> 405, unknown paths -> 404 JSON", async (t) => {
  for (const path of ["/v1/entities", `/v1/entities/${fx.model[3].entity.lei}`, "/v1/facets/country", "/v1/stats"]) {
    for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
      const r = await get(path, { method, body: method === "DELETE" ? undefined : "{}", headers: { "content-type": "application/json" } });
      t.equal(r.status, 405, `${method} ${path}`);
      t.ok(isErrorBody(r), `${method} ${path}: error body`);
      t.match(r.headers.get("allow") ?? "", /\bGET\b/, `${method} ${path}: Allow names GET`);
    }
  }
  for (const path of [
    "/v1",
    "/v1/",
    "/v1/entity",
    "/v2/entities",
    "/v1/entities/x/y",
    "/v1/facets",
    "/v1/stats/x",
    "/V1/ENTITIES",
    "/%ZZ",
    "/v1/entities%2Fx",
  ]) {
    const r = await get(path);
    t.equal(r.status, 404, `GET ${path}`);
    t.ok(isErrorBody(r), `GET ${path}: error body`);
  }
});

t.test("gzip when asked for and the body is at least 1 KB", async (t) => {
  const path = "/v1/entities?q=bank&limit=20";
  const plain = await rawRequest(srv.port, path);
  t.equal(plain.headers["content-encoding"], undefined, "not gzipped unless asked");
  t.ok(plain.raw.length >= 1024, "the plain body is over 1 KB");
  const gz = await rawRequest(srv.port, path, { headers: { "Accept-Encoding": "gzip, deflate, br" } });
  t.equal(gz.status, 200);
  t.equal(gz.headers["content-encoding"], "gzip", "gzipped");
  t.ok(gz.raw.length < plain.raw.length, "smaller on the wire");
  t.same(JSON.parse(gunzipSync(gz.raw).toString()).results, JSON.parse(plain.text).results, "same content");
  t.match(String(gz.headers.vary ?? ""), /accept-encoding/i, "Vary: Accept-Encoding");

  const facets = await rawRequest(srv.port, "/v1/facets/country", { headers: { "Accept-Encoding": "gzip" } });
  t.equal(facets.headers["content-encoding"], "gzip", "the facet list is gzipped too");
  t.same(JSON.parse(facets.text), facetCounts(fx.model, "country"));

  const small = await rawRequest(srv.port, `/v1/entities/${fx.synthetic[0].entity.lei}`, { headers: { "Accept-Encoding": "gzip" } });
  t.ok(small.raw.length < 1024, "one entity is under 1 KB");
  t.equal(small.headers["content-encoding"], undefined, "a small body is not gzipped");
  const err = await rawRequest(srv.port, "/v1/entities?nope=1", { headers: { "Accept-Encoding": "gzip" } });
  t.equal(err.status, 400);
  t.ok(err.raw.length >= 100, "the error body is sizeable");
  const errBody = err.headers["content-encoding"] === "gzip" ? gunzipSync(err.raw).toString() : err.raw.toString();
  t.type(JSON.parse(errBody).error, "string", "error body readable either way");
  const other = await rawRequest(srv.port, path, { headers: { "Accept-Encoding": "deflate, br" } });
  t.equal(other.headers["content-encoding"], undefined, "no gzip when only other codings are accepted");
  t.same(JSON.parse(other.text).results, JSON.parse(plain.text).results);
});

t.test("Accept-Encoding: gzip;q=0 means no gzip", async (t) => {
  const r = await rawRequest(srv.port, "/v1/entities?q=bank", { headers: { "Accept-Encoding": "gzip;q=0, identity" } });
  t.equal(r.headers["content-encoding"], undefined);
});

t.test("the 1 KB gzip threshold counts bytes, not characters", async (t) => {
  // the error names the unknown parameter: ~770 characters but ~1,370 bytes of UTF-8
  const r = await rawRequest(srv.port, `/v1/entities?${"%C3%A9".repeat(600)}=1`, { headers: { "Accept-Encoding": "gzip" } });
  t.equal(r.status, 400);
  const bytes = Buffer.byteLength(r.text);
  t.ok(bytes >= 1024, `the body is ${bytes} bytes`);
  t.equal(r.headers["content-encoding"], "gzip", "so it is gzipped");
});

t.test("ugly input gets a 4xx JSON answer or a normal search, never a 5xx", async (t) => {
  const ugly = [
    "/v1/entities?q=%E0%A4%A",
    "/v1/entities?q=%ZZ",
    "/v1/entities?q=%",
    "/v1/entities?q=%ED%A0%80",
    "/v1/entities?q=%C0%AF",
    "/v1/entities?q=%00%01%02",
    "/v1/entities?q=%EF%BB%BF",
    "/v1/entities?q=%E2%80%8F%E2%80%8D",
    "/v1/entities?q=a%2Bb%26c%3Dd",
    "/v1/entities?%00=1",
    "/v1/entities?=x",
    "/v1/entities?&&&",
    "/v1/entities?q",
    "/v1/entities?q=bank;country=DE",
    "/v1/entities?%FF%FE=1",
    "/v1/entities?Q=bank",
    "/v1/entities?q[]=bank",
    "/v1/entities?q.x=1",
    "/v1/entities?__proto__=1",
    "/v1/entities?constructor=1",
    "/v1/entities?hasOwnProperty=1",
    "/v1/entities?toString=1",
    `/v1/entities?country=${"D".repeat(20000)}`,
    `/v1/entities?${"x".repeat(5000)}=1`,
    `/v1/entities?city=${"%C3%A9".repeat(300)}`,
    `/v1/entities?${Array.from({ length: 500 }, (_, i) => `p${i}=1`).join("&")}`,
    `/v1/entities?${Array.from({ length: 300 }, () => "country=DE").join("&")}`,
    `/v1/entities?${Array.from({ length: 300 }, () => "facets=country").join("&")}`,
    "/v1/entities?q=%E6%97%A5%E6%9C%AC&city=%E6%9D%B1%E4%BA%AC",
    "/v1/entities?fields=%00",
    "/v1/entities?limit=%31%30",
    "/v1/entities?page=%EF%BC%91",
    "/v1/entities?country=d%C3%A9",
    "/v1/entities?status=%C4%B0NACTIVE",
    "/v1/entities?q=" + encodeURIComponent("\u202e\u0000\ud7ff\ufffd\u{10ffff}"),
    "/v1/entities?q=" + encodeURIComponent("Ａ".repeat(500)),
  ];
  for (const path of ugly) {
    const r = await rawRequest(srv.port, path);
    statuses.push({ path, status: r.status });
    if (path.length > 16 * 1024) {
      // over the front's 16 KiB request head: uWS itself answers 431 and closes
      t.equal(r.status, 431, `${path.slice(0, 60)} -> ${r.status}`);
      continue;
    }
    t.ok(r.status === 200 || r.status === 400, `${path.slice(0, 60)} -> ${r.status}`);
    let body: any;
    try {
      body = JSON.parse(r.text);
    } catch {
      body = undefined;
    }
    t.ok(body && (r.status === 200 ? Array.isArray(body.results) : typeof body.error === "string"), `${path.slice(0, 60)}: JSON body`);
  }
  // specific expectations among them
  const lim = await get("/v1/entities?limit=%31%30");
  t.equal(lim.body.limit, 10, "percent-encoded digits are digits");
  const many = await get(`/v1/entities?${Array.from({ length: 300 }, () => "country=DE").join("&")}`);
  const de = await get("/v1/entities?country=DE");
  t.equal(many.body.found, de.body.found, "300 repeats of the same country = that country");
  const proto = await get("/v1/entities?__proto__=1");
  t.equal(proto.status, 400, "__proto__ is an unknown parameter");
  t.match(proto.body.error, /__proto__/);
  const qNoValue = await get("/v1/entities?q");
  t.equal(qNoValue.body?.found, fx.model.length, "?q with no value = empty q");
  const dotless = await get("/v1/entities?status=%C4%B0NACTIVE");
  t.equal(dotless.status, 400, "a Turkish dotted İ is not the letter I");
});

t.test("garbage on the socket does not take the server down", async (t) => {
  /** Writes raw bytes; resolves with what came back once `done(received)` holds, the peer closes, or the time is up. */
  const send = (bytes: string | Buffer, done: (got: string) => boolean = (got) => got.length > 0, timeoutMs = 1500): Promise<string> =>
    new Promise((res) => {
      const s = connect(srv.port, "127.0.0.1");
      let got = "";
      const finish = (): void => {
        clearTimeout(timer);
        s.destroy();
        res(got);
      };
      const timer = setTimeout(finish, timeoutMs);
      s.on("data", (d) => {
        got += d.toString("latin1");
        if (done(got)) finish();
      });
      s.on("error", finish);
      s.on("close", finish);
      s.on("connect", () => s.write(bytes));
    });
  await send("GARBAGE\r\n\r\n");
  await send(Buffer.from([0, 1, 2, 3, 255, 254, 13, 10, 13, 10]));
  await send("GET /v1/entities?q=bank HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n");
  await send(`GET /v1/entities HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(100_000)}\r\n\r\n`);
  await send("GET /v1/stats HTTP/1.1\r\nHost: x\r\n", () => false, 300); // never finished
  const pipelined = await send(
    "GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/stats HTTP/1.1\r\nHost: x\r\n\r\n",
    (got) => (got.match(/HTTP\/1\.1 200/g) ?? []).length >= 2 && /"license"/.test(got),
    10_000,
  );
  t.equal((pipelined.match(/HTTP\/1\.1 200/g) ?? []).length, 2, "two pipelined requests, two answers");
  const health = await get("/health");
  t.equal(health.status, 200, "still alive");
});

t.test("the server keeps serving correct answers after all of the above", async (t) => {
  const fiveHundreds = statuses.filter((s) => s.status >= 500);
  t.same(fiveHundreds, [], "no 5xx was ever returned");
  const issued = synth("Vorlandia Kraftwerk Gesellschaft mbH");
  const page = (await get("/v1/entities?q=Vorlandia%20Kraftwerk")).body;
  t.equal(page.results[0]?.lei, issued.entity.lei, "search still right");
  const stats = (await get("/v1/stats")).body;
  t.equal(stats.records, fx.model.length, "stats still right");
  t.equal((await get("/health/ready")).status, 200, "still ready");
  t.notMatch(srv.stderr(), /internal error|TypeError|RangeError|ReferenceError/, "nothing crashed on stderr");
  t.equal(srv.child.exitCode, null, "process still running");
});
