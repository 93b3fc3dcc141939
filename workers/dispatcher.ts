// Dispatcher thread: owns the webhook endpoints that hash to it and POSTs their deliveries.
// Results go back in batches (every 2 ms or 512 results), not one message per delivery.
//
// LEIDEX_TEST_DISPATCHER_CRASH_AFTER=<n> (test-only, read once here): after sending its n-th
// result this thread throws an uncaught error, so that tests can watch the front replace a
// dispatcher thread that dies. Every incarnation honours it, so the thread keeps dying every n
// results and the front's restart back-off is exercised too.
import { parentPort, workerData } from "node:worker_threads";
import { Deliverer } from "../src/webhooks/deliverer.js";
import type { DispatcherWorkerData, DispatchResult, FromWorker, ToWorker } from "../src/webhooks/protocol.js";

const port = parentPort!;
const crashAfter = Number(process.env.LEIDEX_TEST_DISPATCHER_CRASH_AFTER ?? "0");
const FLUSH_MS = 2;
const FLUSH_AT = 512;
let reported = 0;
let pending: DispatchResult[] = [];
let scheduled = false;

const flush = (): void => {
  scheduled = false;
  if (pending.length === 0) return;
  const message: FromWorker = { type: "results", results: pending };
  pending = [];
  port.postMessage(message);
};

const deliverer = new Deliverer(workerData as DispatcherWorkerData, (result) => {
  pending.push(result);
  reported++;
  if (crashAfter > 0 && reported === crashAfter) {
    flush();
    // an uncaught exception on this thread, as a real bug would raise, with requests still in flight
    setImmediate(() => {
      throw new Error(`test crash: LEIDEX_TEST_DISPATCHER_CRASH_AFTER=${crashAfter} reached`);
    });
    return;
  }
  // a short timer rather than the next turn: each message wakes the front's thread (a syscall),
  // and a few ms of results per message cost far less than one message per handful
  if (pending.length >= FLUSH_AT) flush();
  else if (!scheduled) {
    scheduled = true;
    setTimeout(flush, FLUSH_MS);
  }
});

port.on("message", (m: ToWorker) => {
  if (m.type === "jobs") for (const job of m.jobs) deliverer.enqueue(job);
  else if (m.type === "hold") deliverer.hold(m.webhookId, m.slots, m.forMs);
});
