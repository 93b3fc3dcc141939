// Intake writer thread: commits event batches to state.db on a connection of its own, so that the
// front's event loop never waits for an intake transaction or its fsync (WAL lets the front read
// meanwhile). It holds the batches the front posts and writes one slice per "slice" message.
//
// Test-only switches (read once here):
// - LEIDEX_TEST_INTAKE_HOLD_FILE=<path>: while that file exists, a slice holds its transaction
//   open before committing, after creating <path>.writing, so tests can act mid-write.
// - LEIDEX_TEST_INTAKE_EXIT_AFTER=<event id>: the thread exits right after committing a slice that
//   newly stored that event, before answering (stored, never acknowledged: the worst moment).
import { existsSync, writeFileSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { openStateDbConnection } from "../src/store/state-db.js";
import { Backlog } from "../src/webhooks/backlog.js";
import type { FromIntakeWorker, IntakeWorkerData, ToIntakeWorker } from "../src/webhooks/intake-protocol.js";
import { IntakeWriter, type HeldBatch } from "../src/webhooks/intake-writer.js";
import { Outbox } from "../src/webhooks/outbox.js";
import { SuppressionStore } from "../src/webhooks/suppression-store.js";
import { TenantStore } from "../src/webhooks/tenant-store.js";

const port = parentPort!;
const data = workerData as IntakeWorkerData;
const holdFile = process.env.LEIDEX_TEST_INTAKE_HOLD_FILE ?? "";
const exitAfter = process.env.LEIDEX_TEST_INTAKE_EXIT_AFTER ?? "";

const db = openStateDbConnection(data.path);
// the stores' schemas exist already (the front made them); constructing them only prepares
const writer = new IntakeWriter(db, new TenantStore(db), new SuppressionStore(db), new Outbox(db), new Backlog(db, data.caps));

/** batches posted and not yet written, oldest first; a taken slot is cleared so its events can be collected */
let held: (HeldBatch | undefined)[] = [];
let head = 0;
const take = (): HeldBatch | undefined => {
  const b = held[head];
  if (b === undefined) return undefined;
  held[head++] = undefined;
  if (head === held.length) {
    held = [];
    head = 0;
  }
  return b;
};

const pause = new Int32Array(new SharedArrayBuffer(4));
const hold = (): void => {
  if (holdFile === "" || !existsSync(holdFile)) return;
  writeFileSync(`${holdFile}.writing`, "");
  while (existsSync(holdFile)) Atomics.wait(pause, 0, 0, 20);
};

port.on("message", (m: ToIntakeWorker) => {
  if (m.type === "batch") {
    held.push({ id: m.id, events: m.events });
    return;
  }
  const taken: HeldBatch[] = [];
  let answer: FromIntakeWorker;
  try {
    const outcomes = writer.slice(
      () => {
        const b = take();
        if (b) taken.push(b);
        return b;
      },
      m.now,
      m.rooms,
      m.sliceMs,
      hold,
    );
    answer = { type: "slice", outcomes };
  } catch (err) {
    const e = err as { message?: unknown; code?: unknown };
    answer = {
      type: "failed",
      ids: taken.map((b) => b.id),
      error: { message: String(e.message), code: typeof e.code === "string" ? e.code : null },
    };
  }
  if (exitAfter !== "" && answer.type === "slice") {
    const marked = taken.find((b) => b.events.some((e) => e.id === exitAfter));
    const outcome = marked && answer.outcomes.find((o) => o.id === marked.id);
    if (outcome && "ok" in outcome && outcome.ok.accepted > 0) process.exit(1);
  }
  port.postMessage(answer);
});
