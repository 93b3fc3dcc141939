// The renewal sweep judges "days until NextRenewalDate" on the trusted clock: the real server runs
// under libfaketime as in test/hardening-clock-steps.test.ts, its wall clock stepped while it
// runs. A renewal 70 days away gets no reminder when the wall clock is stepped 20 days ahead (a
// sweep on the wall clock would send the 60-day one); once the clock is put right, a renewal 25
// days away gets its 30-day reminder, the only one the receiver sees.

import t from "tap";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readSample } from "./helpers/fixture.js";
import { csvText, goldenCopy, GleifImitation, sampleLevel2 } from "./helpers/gleif-imitation.js";
import { startServer, tempDir } from "./helpers/server.js";
import { generatedOperatorKey, json, webhookCalls, WEBHOOK_SERVER_ARGS } from "./helpers/webhook-api.js";
import { startReceiver, verifyMailSignature } from "./helpers/webhook-receiver.js";

const LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";
const PETERSHILL = "549300XULF26SE267B93";
const { header, rows } = readSample();
const renewalAt = (days: number): string => `${new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)}T00:00:00+00:00`;
const withRenewal = (publishDate: string, renewal: string) =>
  goldenCopy(publishDate, {
    csv: csvText(
      header,
      rows.map((r) => (r[0] === PETERSHILL ? r.map((v, i) => (header[i] === "Registration.NextRenewalDate" ? renewal : v)) : r)),
    ),
    rows: rows.length,
  });

t.test(
  "a forward step of the wall clock sends no renewal reminder early",
  { skip: !existsSync(LIBFAKETIME) && "libfaketime is not installed" },
  async (t) => {
    const dir = tempDir(t, "leidex-watch-clock-");
    const clockFile = join(dir, "faketime.rc");
    const step = (offset: string): void => writeFileSync(clockFile, `${offset}\n`);
    step("+0");
    t.teardown(() => step("+0"));
    const gleif = await GleifImitation.start();
    t.teardown(() => gleif.close());
    const receiver = await startReceiver(t);
    process.env.LEIDEX_WEBHOOK_TIME_SCALE = "1000";
    gleif.publish(withRenewal("2026-09-30 08:00:00", renewalAt(70)), {}, sampleLevel2("20260930-0800"));
    const srv = await startServer(t, {
      source: null,
      timeoutMs: 90_000,
      args: [...WEBHOOK_SERVER_ARGS, ...gleif.args, "--retry-seconds", "60"],
      env: { LD_PRELOAD: LIBFAKETIME, FAKETIME_TIMESTAMP_FILE: clockFile, FAKETIME_NO_CACHE: "1", FAKETIME_DONT_FAKE_MONOTONIC: "1" },
    });
    const { api, mkTenant, mkHook } = webhookCalls(() => srv, generatedOperatorKey(srv), receiver);
    const A = await mkTenant("renewals");
    const hook = await mkHook(A.key, "/r", ["lei.renewal_due"]);
    t.equal((await api("POST", "/v1/watchlists", A.key, { leis: [PETERSHILL] })).status, 201);
    const reload = async (pattern: RegExp): Promise<void> => {
      const mark = srv.stdout().length;
      srv.child.kill("SIGHUP");
      await receiver.waitFor(() => pattern.test(srv.stdout().slice(mark)), 90_000, `log ${pattern}`);
    };

    // 20 days ahead: the renewal looks 50 days away on the wall clock, 70 on the trusted one
    step("+20d");
    gleif.publish(withRenewal("2026-09-30 16:00:00", renewalAt(70)), {}, sampleLevel2("20260930-1600"));
    await reload(/loaded \d+ records as lei_20260930-1600/);
    // put right: a renewal 25 days away (real) is due its 30-day reminder
    step("+0");
    const due = renewalAt(25);
    gleif.publish(withRenewal("2026-10-01 00:00:00", due), {}, sampleLevel2("20261001-0000"));
    await reload(/loaded \d+ records as lei_20261001-0000/);
    await receiver.waitFor(() => receiver.hits("/r").length > 0, 60_000, "the reminder");
    const hits = receiver.hits("/r");
    t.equal(hits.length, 1, "one reminder: none while the clock was ahead");
    t.match(json(hits[0]), { type: "lei.renewal_due", data: { lei: PETERSHILL, nextRenewalDate: due, daysLeft: 25, threshold: 30 } });
    t.ok(verifyMailSignature(hook.secret, hits[0]), "signed");
  },
);
