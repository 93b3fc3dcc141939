// Watchlists (issue 45, item 4) on the real server over real HTTP: CRUD from JSON, CSV and a
// filter, every 4xx at once with nothing stored and the server serving on, the per-tenant cap of
// 100,000 LEIs, another tenant neither seeing nor changing a list. Then end to end against the
// GLEIF imitation across publications, on the bundled sample's real LEIs: the webhook receiver
// gets signed lei.lapsed, lei.renewal_due and lei.parent_changed events (named and filter lists),
// verified with the webhook secret, each once; and a kill -9 after a load's swap, before its
// events were written, loses none (they arrive after the restart, once).

import t from "tap";
import { csvLine, parseCsv, readSample, withBadCheckDigits, withCheckDigits } from "./helpers/fixture.js";
import { GleifImitation, sampleGoldenCopy, sampleLevel2, sampleLevel2Text, goldenCopy, csvText } from "./helpers/gleif-imitation.js";
import { startServer, tempDir, type RunningServer } from "./helpers/server.js";
import { generatedOperatorKey, json, webhookBench, webhookCalls, WEBHOOK_SERVER_ARGS } from "./helpers/webhook-api.js";
import { startReceiver, verifyMailSignature, type Hit } from "./helpers/webhook-receiver.js";

// real LEIs of the bundled sample
const LINO = "549300YRNUQ0FK60YT75"; // ISSUED; lapses in publication B
const PETERSHILL = "549300XULF26SE267B93";
const CHILD = "254900RX3NW13DDG3905"; // direct parent 5299001ERX0K10IZUL40, moved to 529900GRZ2BQY5ZM9N49 in B
const OLD_PARENT = "5299001ERX0K10IZUL40";
const NEW_PARENT = "529900GRZ2BQY5ZM9N49";
const SIBLING = "529900YR7EORVQ2U3353"; // same direct parent; lapses in publication C (the kill -9 run)

const sendCsv = (srv: RunningServer, path: string, key: string, csv: string | Buffer): Promise<{ status: number; body: any }> =>
  fetch(srv.base + path, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "text/csv" }, body: csv }).then(
    async (r) => ({ status: r.status, body: JSON.parse((await r.text()) || "null") }),
  );

t.test("CRUD, CSV, filters, the 4xx cases, the per-tenant cap and tenant isolation", async (t) => {
  const { srv, A, B, OP, api } = await webhookBench(t);

  // create from a JSON list: trimmed, upper-cased, duplicates once
  const made = await api("POST", "/v1/watchlists", A.key, { name: "counterparties", leis: [LINO, ` ${PETERSHILL.toLowerCase()} `, LINO] });
  t.equal(made.status, 201, made.text);
  t.match(made.body, { name: "counterparties", filter: null, lei_count: 2 });
  t.match(made.body.id, /^wl_/);
  const id = made.body.id as string;
  const got = await api("GET", `/v1/watchlists/${id}`, A.key);
  t.same(got.body.leis, [PETERSHILL, LINO].sort(), "its LEIs, in LEI order");
  const page1 = await api("GET", `/v1/watchlists/${id}?limit=1`, A.key);
  t.equal(page1.body.leis.length, 1);
  const page2 = await api("GET", `/v1/watchlists/${id}?limit=1&after=${page1.body.next_after}`, A.key);
  t.same([...page1.body.leis, ...page2.body.leis], [PETERSHILL, LINO].sort(), "paged with next_after");

  // add and remove
  const added = await api("POST", `/v1/watchlists/${id}/leis`, A.key, { leis: [CHILD, LINO] });
  t.same(added.body, { id, added: 1, lei_count: 3 }, "one new, one already there");
  const removed = await api("POST", `/v1/watchlists/${id}/leis/remove`, A.key, { leis: [PETERSHILL, SIBLING] });
  t.same(removed.body, { id, removed: 1, lei_count: 2 }, "one removed, one never there");

  // CSV: one LEI a line; a golden-copy-style header with an LEI column; the sample's own file head
  const csv1 = await sendCsv(srv, "/v1/watchlists?name=from-csv", A.key, `${LINO}\r\n\n${CHILD}\n`);
  t.equal(csv1.status, 201);
  t.match(csv1.body, { name: "from-csv", lei_count: 2 });
  const head = readSample().text.split("\n").slice(0, 4).join("\n");
  const csv2 = await sendCsv(srv, "/v1/watchlists", A.key, `\uFEFF${head}\n`);
  t.equal(csv2.status, 201, "the golden copy's header and rows");
  t.equal(csv2.body.lei_count, 3);
  const csv3 = await sendCsv(srv, `/v1/watchlists/${id}/leis`, A.key, `name,LEI\n"Lino, AB",${SIBLING}\n`);
  t.same(csv3.body, { id, added: 1, lei_count: 3 }, "a quoted field with a comma before the LEI column");

  // a filter list
  const filtered = await api("POST", "/v1/watchlists", A.key, { name: "group", filter: { directParent: OLD_PARENT.toLowerCase() } });
  t.equal(filtered.status, 201);
  t.same(filtered.body.filter, { directParent: OLD_PARENT });
  t.equal(filtered.body.lei_count, 0);

  // every 4xx at once, nothing stored
  const before = (await api("GET", "/v1/watchlists", A.key)).body.watchlists.length;
  const badDigits = withBadCheckDigits("549300YRNUQ0FK60YT");
  const cases: [string, () => Promise<{ status: number; body: any }>, number, RegExp][] = [
    ["bad check digits", () => api("POST", "/v1/watchlists", A.key, { leis: [LINO, badDigits] }), 400, /leis\[1\].*check digits/],
    ["not an LEI", () => api("POST", "/v1/watchlists", A.key, { leis: ["ACME"] }), 400, /leis\[0\]: 'ACME' is not an LEI/],
    ["a CSV bad line", () => sendCsv(srv, "/v1/watchlists", A.key, `${LINO}\n${badDigits}\n`), 400, /CSV line 2: .*check digits/],
    ["a CSV unclosed quote", () => sendCsv(srv, "/v1/watchlists", A.key, `"${LINO}\n`), 400, /unclosed quote/],
    ["a CSV header without LEI", () => sendCsv(srv, "/v1/watchlists", A.key, `name,code\nx,${LINO}\n`), 400, /no LEI column/],
    ["a CSV not UTF-8", () => sendCsv(srv, "/v1/watchlists", A.key, Buffer.from([0xff, 0xfe, 0x41, 0x0a])), 400, /not UTF-8/],
    ["an empty CSV", () => sendCsv(srv, "/v1/watchlists", A.key, "\n\n"), 400, /no LEI/],
    [
      "a bad filter LEI",
      () => api("POST", "/v1/watchlists", A.key, { filter: { ultimateParent: badDigits } }),
      400,
      /filter.ultimateParent/,
    ],
    [
      "two filter kinds",
      () => api("POST", "/v1/watchlists", A.key, { filter: { ultimateParent: LINO, directParent: LINO } }),
      400,
      /watchlist/,
    ],
    ["neither leis nor filter", () => api("POST", "/v1/watchlists", A.key, { name: "x" }), 400, /watchlist/],
    ["an unknown field", () => api("POST", "/v1/watchlists", A.key, { leis: [LINO], colour: "red" }), 400, /watchlist/],
    ["bad JSON", () => api("POST", "/v1/watchlists", A.key, undefined, "{"), 400, /JSON/],
    ["an unknown list", () => api("POST", "/v1/watchlists/wl_nope/leis", A.key, { leis: [LINO] }), 404, /no such watchlist/],
    ["an unknown list's GET", () => api("GET", "/v1/watchlists/wl_nope", A.key), 404, /no such watchlist/],
    ["a bad limit", () => api("GET", `/v1/watchlists/${id}?limit=0`, A.key), 400, /limit/],
    ["no key", () => api("GET", "/v1/watchlists", null), 401, /key/],
    ["the operator key", () => api("GET", "/v1/watchlists", OP), 403, /tenant key/],
    ["another method", () => api("PUT", `/v1/watchlists/${id}`, A.key, {}), 405, /allowed/],
  ];
  for (const [what, call, status, message] of cases) {
    const r = await call();
    t.equal(r.status, status, what);
    t.match(r.body?.error ?? "", message, `${what}: ${r.body?.error}`);
  }
  const huge = await fetch(`${srv.base}/v1/watchlists`, {
    method: "POST",
    headers: { authorization: `Bearer ${A.key}`, "content-type": "text/csv" },
    body: `${LINO}\n`.repeat(250_000),
  });
  t.equal(huge.status, 413, "a body over 4 MiB");
  const wrongType = await fetch(`${srv.base}/v1/watchlists`, {
    method: "POST",
    headers: { authorization: `Bearer ${A.key}`, "content-type": "text/html" },
    body: "<p>",
  });
  t.equal(wrongType.status, 415, "neither JSON nor CSV");
  t.equal((await api("GET", "/v1/watchlists", A.key)).body.watchlists.length, before, "nothing stored by any of them");
  t.equal((await srv.get("/health")).status, 200, "the server serves on");

  // another tenant neither sees nor changes a list: 404s, never 403s
  t.same((await api("GET", "/v1/watchlists", B.key)).body.watchlists, [], "B sees none of A's lists");
  t.equal((await api("GET", `/v1/watchlists/${id}`, B.key)).status, 404);
  t.equal((await api("POST", `/v1/watchlists/${id}/leis`, B.key, { leis: [PETERSHILL] })).status, 404);
  t.equal((await api("POST", `/v1/watchlists/${id}/leis/remove`, B.key, { leis: [LINO] })).status, 404);
  t.equal((await api("DELETE", `/v1/watchlists/${id}`, B.key)).status, 404);
  t.equal((await api("GET", `/v1/watchlists/${id}`, A.key)).body.lei_count, 3, "A's list unchanged");

  // the cap: 100,000 LEIs per tenant across its lists
  const many = Array.from({ length: 100_000 }, (_, i) => withCheckDigits(`LEIDEXWATCH${String(i).padStart(7, "0")}`));
  const over = await sendCsv(srv, "/v1/watchlists?name=big", A.key, `LEI\n${many.join("\n")}\n`);
  t.equal(over.status, 409, "100,000 more would take A past its cap");
  t.match(over.body.error, /100\d{3} LEIs, more than the 100000/);
  const bigB = await sendCsv(srv, "/v1/watchlists?name=big", B.key, `LEI\n${many.join("\n")}\n`);
  t.equal(bigB.status, 201, "B holds exactly 100,000");
  t.equal(bigB.body.lei_count, 100_000);
  const oneMore = await api("POST", `/v1/watchlists/${bigB.body.id}/leis`, B.key, { leis: [LINO] });
  t.equal(oneMore.status, 409, "and not one more");
  const elsewhere = await api("POST", "/v1/watchlists", B.key, { leis: [LINO] });
  t.equal(elsewhere.status, 409, "in any of its lists");
  t.equal((await api("POST", `/v1/watchlists/${bigB.body.id}/leis`, B.key, { leis: [many[5]] })).body.added, 0, "one it has already fits");

  // delete
  t.same((await api("DELETE", `/v1/watchlists/${id}`, A.key)).body, { id, deleted: true });
  t.equal((await api("GET", `/v1/watchlists/${id}`, A.key)).status, 404, "gone");
});

// ---------------------------------------------------------------- end to end

const { header, rows } = readSample();
const col = (name: string): number => header.indexOf(name);
const dayFromNow = (days: number): string => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** The sample with some records changed: by LEI, column name to value. */
function publication(publishDate: string, changes: Record<string, Record<string, string>>) {
  const changed = rows.map((r) => {
    const c = changes[r[0]];
    if (!c) return r;
    const out = [...r];
    for (const [name, value] of Object.entries(c)) out[col(name)] = value;
    return out;
  });
  return goldenCopy(publishDate, { csv: csvText(header, changed), rows: changed.length });
}

/** The sample's rr file with CHILD's direct parent moved to NEW_PARENT. */
function rrMoved(): string {
  const [rrHeader, ...rrRows] = parseCsv(sampleLevel2Text("rr"));
  const s = rrHeader.indexOf("Relationship.StartNode.NodeID");
  const e = rrHeader.indexOf("Relationship.EndNode.NodeID");
  const ty = rrHeader.indexOf("Relationship.RelationshipType");
  return (
    [
      rrHeader,
      ...rrRows.map((r) => (r[s] === CHILD && r[ty] === "IS_DIRECTLY_CONSOLIDATED_BY" ? r.map((v, i) => (i === e ? NEW_PARENT : v)) : r)),
    ]
      .map(csvLine)
      .join("\n") + "\n"
  );
}

const RENEWAL = `${dayFromNow(20)}T00:00:00+00:00`;
const pubA = sampleGoldenCopy("2026-09-30 08:00:00");
const pubB = publication("2026-09-30 16:00:00", {
  [LINO]: { "Registration.RegistrationStatus": "LAPSED" },
  [PETERSHILL]: { "Registration.NextRenewalDate": RENEWAL },
});
const pubC = publication("2026-10-01 00:00:00", {
  [LINO]: { "Registration.RegistrationStatus": "LAPSED" },
  [PETERSHILL]: { "Registration.NextRenewalDate": RENEWAL },
  [SIBLING]: { "Registration.RegistrationStatus": "LAPSED" },
});

t.test("end to end: signed lei.lapsed, lei.renewal_due and lei.parent_changed, each once; kill -9 after a swap loses none", async (t) => {
  const gleif = await GleifImitation.start();
  t.teardown(() => gleif.close());
  const receiver = await startReceiver(t);
  process.env.LEIDEX_WEBHOOK_TIME_SCALE = "1000";
  const dataDir = tempDir(t, "leidex-watch-");
  gleif.publish(pubA, {}, sampleLevel2("20260930-0800"));
  const args = [...WEBHOOK_SERVER_ARGS, ...gleif.args, "--retry-seconds", "60"];
  let srv = await startServer(t, { dataDir, source: null, timeoutMs: 90_000, args });
  const OP = generatedOperatorKey(srv);
  const { api, mkTenant, mkHook } = webhookCalls(() => srv, OP, receiver);
  const A = await mkTenant("watcher-a");
  const B = await mkTenant("watcher-b");
  const LEI_TYPES = ["lei.changed", "lei.lapsed", "lei.renewal_due", "lei.retired", "lei.merged", "lei.parent_changed", "lei.name_changed"];
  const hookA = await mkHook(A.key, "/a", LEI_TYPES);
  const hookB = await mkHook(B.key, "/b", ["lei.parent_changed", "lei.lapsed"]);
  t.equal((await api("POST", "/v1/watchlists", A.key, { name: "named", leis: [LINO, PETERSHILL, CHILD] })).status, 201);
  t.equal((await api("POST", "/v1/watchlists", B.key, { name: "group", filter: { directParent: OLD_PARENT } })).status, 201);

  const reload = async (pattern: RegExp): Promise<void> => {
    const mark = srv.stdout().length;
    srv.child.kill("SIGHUP");
    await receiver.waitFor(() => pattern.test(srv.stdout().slice(mark)), 90_000, `log ${pattern}`);
  };
  const of = (path: string, type: string, lei: string): Hit[] =>
    receiver.hits(path).filter((h) => json(h).type === type && json(h).data.lei === lei);
  const signed = (secret: string, hits: Hit[]): boolean => hits.every((h) => verifyMailSignature(secret, h));

  gleif.publish(pubB, {}, sampleLevel2("20260930-1600", { rr: rrMoved() }));
  await reload(/loaded \d+ records as lei_20260930-1600/);
  await receiver.waitFor(
    () =>
      of("/a", "lei.lapsed", LINO).length > 0 &&
      of("/a", "lei.changed", LINO).length > 0 &&
      of("/a", "lei.renewal_due", PETERSHILL).length > 0 &&
      of("/a", "lei.parent_changed", CHILD).length > 0 &&
      of("/b", "lei.parent_changed", CHILD).length > 0,
    60_000,
    "the events of publication B",
  );
  const lapsed = of("/a", "lei.lapsed", LINO);
  t.ok(signed(hookA.secret, lapsed), "lei.lapsed is signed with the webhook's secret");
  t.match(json(lapsed[0]).data, {
    lei: LINO,
    watchlists: [String],
    changes: [{ field: "registrationStatus", valueOld: "ISSUED", valueNew: "LAPSED" }],
  });
  const renewal = of("/a", "lei.renewal_due", PETERSHILL);
  t.ok(signed(hookA.secret, renewal), "lei.renewal_due is signed");
  t.match(json(renewal[0]).data, { lei: PETERSHILL, nextRenewalDate: RENEWAL, daysLeft: 20, threshold: 30 });
  const moved = of("/a", "lei.parent_changed", CHILD);
  t.ok(signed(hookA.secret, moved), "lei.parent_changed is signed");
  t.match(json(moved[0]).data, { lei: CHILD, directParent: { old: OLD_PARENT, new: NEW_PARENT } });
  const viaFilter = of("/b", "lei.parent_changed", CHILD);
  t.ok(signed(hookB.secret, viaFilter), "the filter list's tenant gets it signed with its own secret");
  t.equal(json(viaFilter[0]).tenant_id, B.id);
  t.ok(of("/a", "lei.changed", LINO).length === 1, "every change also makes a lei.changed");
  t.same(of("/b", "lei.lapsed", LINO), [], "B does not watch LINO");

  // C: SIBLING lapses. The consumer is paused, the load swaps, the server is killed before any event is written
  await srv.stop();
  srv = await startServer(t, { dataDir, source: null, timeoutMs: 90_000, args, env: { LEIDEX_TEST_WATCH_EVENTS_PAUSED: "1" } });
  gleif.publish(pubC, {}, sampleLevel2("20261001-0000", { rr: rrMoved() }));
  await reload(/loaded \d+ records as lei_20261001-0000/);
  t.equal((await srv.json("/v1/stats")).published, pubC.published, "C is live");
  await srv.kill9();
  t.same(of("/b", "lei.lapsed", SIBLING), [], "nothing sent before the kill");
  srv = await startServer(t, { dataDir, source: null, timeoutMs: 90_000, args });
  await receiver.waitFor(() => of("/b", "lei.lapsed", SIBLING).length > 0, 60_000, "C's lei.lapsed after the restart");
  t.ok(signed(hookB.secret, of("/b", "lei.lapsed", SIBLING)), "signed");

  // let any duplicate arrive, then: each event once, by id and by count
  await new Promise((r) => setTimeout(r, 3000));
  for (const [path, type, lei] of [
    ["/a", "lei.lapsed", LINO],
    ["/a", "lei.renewal_due", PETERSHILL],
    ["/a", "lei.parent_changed", CHILD],
    ["/b", "lei.parent_changed", CHILD],
    ["/b", "lei.lapsed", SIBLING],
  ]) {
    const hits = of(path, type, lei);
    t.equal(hits.length, 1, `${type} of ${lei} to ${path} once (${hits.length})`);
  }
  const ids = receiver.hits("/a").map((h) => json(h).id as string);
  t.equal(new Set(ids).size, ids.length, "no event id twice at /a");
});
