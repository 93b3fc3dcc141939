// Dispatcher thread: owns the webhook endpoints that hash to it and POSTs their deliveries.
import { parentPort, workerData } from "node:worker_threads";
import { Deliverer } from "../src/webhooks/deliverer.js";
import type { DispatcherWorkerData, FromWorker, ToWorker } from "../src/webhooks/protocol.js";

const port = parentPort!;
const deliverer = new Deliverer(workerData as DispatcherWorkerData, (result) => {
  const message: FromWorker = { type: "result", result };
  port.postMessage(message);
});
port.on("message", (m: ToWorker) => {
  if (m.type === "job") deliverer.enqueue(m.job);
});
