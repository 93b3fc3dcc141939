// The load generator's pipelined closed loop (bench:cores' pipelined lookups): each connection
// writes its requests together, sends the next ones only once all are answered, and counts every
// answer once. A raw TCP server here sees how the requests arrive and answers each in order.

import net from "node:net";
import t from "tap";
import type { LoadResult } from "../bench/loadgen.js";

const ROOT = new URL("..", import.meta.url);
const { runLoad } = (await import(new URL("dist/bench/loadgen.js", ROOT).href)) as typeof import("../bench/loadgen.js");

const BODY = '{"ok":true}';
const RESPONSE = `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}`;

interface Seen {
  /** requests per connection, in the order they arrived */
  readonly paths: string[][];
  /** the most requests a connection had unanswered at once */
  mostInFlight: number;
  /** a request that arrived while the connection's earlier ones were not all answered yet */
  arrivedEarly: number;
}

/** Answers each request after `delayMs`, in order; records how they arrived. */
async function server(delayMs: number): Promise<{ port: number; seen: Seen; close: () => Promise<void> }> {
  const seen: Seen = { paths: [], mostInFlight: 0, arrivedEarly: 0 };
  const srv = net.createServer((socket) => {
    const mine: string[] = [];
    seen.paths.push(mine);
    let buffered = "";
    let inFlight = 0;
    socket.on("data", (chunk) => {
      buffered += chunk.toString("latin1");
      for (let end = buffered.indexOf("\r\n\r\n"); end >= 0; end = buffered.indexOf("\r\n\r\n")) {
        const head = buffered.slice(0, end);
        buffered = buffered.slice(end + 4);
        mine.push(head.split(" ")[1] ?? "");
        if (inFlight > 0) seen.arrivedEarly++;
        inFlight++;
        seen.mostInFlight = Math.max(seen.mostInFlight, inFlight);
        setTimeout(() => {
          inFlight--;
          if (!socket.destroyed) socket.write(RESPONSE);
        }, delayMs);
      }
    });
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const port = (srv.address() as net.AddressInfo).port;
  return {
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        srv.closeAllConnections?.();
        srv.close(() => resolve());
      }),
  };
}

const paths = Array.from({ length: 1000 }, (_, i) => `/v1/entities/${String(i).padStart(20, "0")}`);

async function load(port: number, pipeline: number, connections: number, total: number): Promise<LoadResult> {
  return runLoad({ host: "127.0.0.1", port, paths, connections, durationS: 20, warmupS: 0, total, pipeline });
}

t.test("pipelined: requests go out together, each answer is counted once, the next ones wait for all", async (t) => {
  const s = await server(2);
  t.teardown(s.close);
  const result = await load(s.port, 8, 2, 160);
  t.equal(result.requests, 160, "every answer counted once");
  t.equal(result.errors, 0);
  t.same(result.statusCounts, { 200: 160 });
  t.equal(s.seen.mostInFlight, 8, "a connection keeps its pipeline full, never more");
  t.ok(s.seen.arrivedEarly >= 100, `requests arrived behind unanswered ones (${s.seen.arrivedEarly})`);
  const sent = s.seen.paths.flat();
  t.equal(sent.length, 160, "no request sent beyond the total");
  t.equal(new Set(sent).size, 160, "each request taken from the list once");
});

t.test("one at a time unless asked: no request is sent before the last is answered", async (t) => {
  const s = await server(1);
  t.teardown(s.close);
  const result = await load(s.port, 1, 2, 60);
  t.equal(result.requests, 60);
  t.equal(s.seen.mostInFlight, 1);
  t.equal(s.seen.arrivedEarly, 0);
});

t.test("pipelining is refused for an open loop, whose requests go when they fall due", async (t) => {
  await t.rejects(
    runLoad({ host: "127.0.0.1", port: 1, paths, connections: 1, durationS: 1, warmupS: 0, ratePerS: 100, pipeline: 4 }),
    /pipelining is for closed loops/,
  );
});
