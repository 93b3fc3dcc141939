// Loader thread: streams one golden copy into record batches for the shard workers.
import { parentPort, workerData } from "node:worker_threads";
import { yieldToFront } from "../src/os/thread-priority.js";
import { runLoader, type LoaderInput, type LoaderMessage } from "../src/golden-copy/load.js";

yieldToFront();

const port = parentPort!;
runLoader(workerData as LoaderInput, port).catch((err: Error) => {
  const message: LoaderMessage = { type: "error", message: err.message };
  port.postMessage(message);
});
