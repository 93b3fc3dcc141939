// One load of a golden copy into a fresh generation: the loader thread parses, the shards build,
// and the generation goes live only when every slice is built and the counts agree. A load that
// fails for any reason leaves the live collection as it was.

import { basename } from "node:path";
import { Worker } from "node:worker_threads";
import type { Collection } from "../engine/collection.js";
import type { LoaderControl, LoaderInput, LoaderMessage } from "./golden-copy/load.js";
import { isUrl } from "./golden-copy/source.js";

export interface LoadRequest {
  source: string;
  dataDir: string;
  /** human text for /v1/stats `source` */
  describe: string;
  log: (line: string) => void;
}

export interface LoadResult { records: number; ingestSeconds: number; downloadSeconds: number | null; published: string | null }

export async function loadInto(collection: Collection, slices: number, req: LoadRequest): Promise<LoadResult> {
  const gen = await collection.begin();
  try {
    const done = await runLoaderThread(collection, gen, slices, req);
    const buildStarted = Date.now();
    const sliceDocs = await collection.finish(gen);
    const built = sliceDocs.reduce((a, b) => a + b, 0);
    if (done.records === 0) throw new Error("golden copy holds no records");
    if (built > done.records) throw new Error(`slices hold ${built} docs but ${done.records} records were parsed`);
    const ingestSeconds = done.ingestSeconds + (Date.now() - buildStarted) / 1000;
    const name = `lei_${(done.published ?? "unpublished").replace(/[^0-9A-Za-z]/g, "")}`;
    collection.swap(gen, sliceDocs, {
      name, source: req.describe, published: done.published, downloadSeconds: done.downloadSeconds, ingestSeconds,
      loadedAt: new Date().toISOString(),
    });
    if (built !== done.records) req.log(`${done.records - built} duplicate LEI rows were folded into one record each`);
    if (done.skipped > 0) req.log(`${done.skipped} rows skipped: their LEI is not 20 upper-case letters or digits`);
    return { records: built, ingestSeconds, downloadSeconds: done.downloadSeconds, published: done.published };
  } catch (err) {
    await collection.abandon(gen);
    throw err;
  }
}

type Done = Extract<LoaderMessage, { type: "done" }>;

function runLoaderThread(collection: Collection, gen: number, slices: number, req: LoadRequest): Promise<Done> {
  const input: LoaderInput = { source: req.source, dataDir: req.dataDir, slices };
  const worker = new Worker(new URL("../../workers/loader.js", import.meta.url), { workerData: input });
  const label = isUrl(req.source) ? req.source : basename(req.source);
  // The loader posts "done" only once every batch was acknowledged, that is, added to its slice.
  return new Promise<Done>((resolve, reject) => {
    let settled = false;
    const finish = (err: Error | null, done?: Done): void => {
      if (settled) return;
      settled = true;
      void worker.terminate();
      if (err) reject(err); else resolve(done!);
    };
    worker.on("message", (m: LoaderMessage) => {
      switch (m.type) {
        case "batch": {
          collection.add(gen, m.slice, m.payload).then(
            () => {
              const ack: LoaderControl = { type: "ack" };
              if (!settled) worker.postMessage(ack);
            },
            (e: Error) => finish(e),
          );
          break;
        }
        case "log":
          req.log(`load ${label}: ${m.message}`);
          break;
        case "done":
          finish(null, m);
          break;
        case "error":
          finish(new Error(m.message));
          break;
      }
    });
    worker.on("error", (e) => finish(e));
    worker.on("exit", (code) => finish(new Error(`loader thread exited with code ${code}`)));
  });
}
