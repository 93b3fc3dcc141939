// One thread of the dispatch bench's baseline: a bare keep-alive HTTPS POST loop to the bench
// receiver through undici's dispatch API (no response streams: the leanest client undici has, the
// same way the dispatcher threads send), each request signed like a dispatch (HMAC-SHA256 over
// timestamp.nonce.body), no server in between. The bench runs as many of these threads as the
// server has dispatcher threads.

import { createHmac, randomBytes } from "node:crypto";
import { parentPort, workerData } from "node:worker_threads";
import { Agent } from "undici";

export interface BaselineData {
  base: string;
  paths: string[];
  secret: string;
  seconds: number;
  connections: number;
  bodyBytes: number;
  ca: string;
  thread: number;
}
export interface BaselineDone {
  requests: number;
  errors: number;
}

const d = workerData as BaselineData;
// loaded and ready: wait for the word, so that every thread starts at once and thread start-up is not timed
parentPort!.postMessage("ready");
await new Promise<void>((r) => parentPort!.once("message", () => r()));
const agent = new Agent({ connect: { ca: d.ca }, connections: d.connections, keepAliveTimeout: 30_000 });
const pad = "x".repeat(Math.max(0, d.bodyBytes - 120));
let seq = 0;
let errors = 0;
const end = performance.now() + d.seconds * 1000;

const loop = async (): Promise<void> => {
  while (performance.now() < end) {
    const i = seq++;
    const id = `base-${d.thread}-${i}`;
    const body = JSON.stringify({ id, type: "delivered", created_at: new Date().toISOString(), tenant_id: "tn_base", data: { pad } });
    const ts = Math.floor(Date.now() / 1000);
    const nonce = randomBytes(16).toString("hex");
    const sig = createHmac("sha256", Buffer.from(d.secret, "utf8")).update(`${ts}.${nonce}.`).update(body).digest("hex");
    const status = await new Promise<number>((resolve) => {
      let code = 0;
      agent.dispatch(
        {
          origin: d.base,
          path: d.paths[i % d.paths.length],
          method: "POST",
          body,
          headers: {
            "content-type": "application/json",
            "x-mail-event": "delivered",
            "x-mail-event-id": id,
            "x-mail-timestamp": String(ts),
            "x-mail-nonce": nonce,
            "x-mail-signature": sig,
          },
        },
        {
          onRequestStart: () => undefined, // marks the handler as undici 7's controller API
          onResponseStart: (_c, statusCode) => {
            code = statusCode;
          },
          onResponseEnd: () => resolve(code),
          onResponseError: () => resolve(0),
        },
      );
    });
    if (status !== 200) errors++;
  }
};

await Promise.all(Array.from({ length: d.connections }, loop));
await agent.close();
parentPort!.postMessage({ requests: seq, errors } satisfies BaselineDone);
