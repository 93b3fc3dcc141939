// Where a thread's router sends its batches: spread over the idle workers while there are no more
// workers than cores; with more, over as many as there are cores, the lowest numbered first, and
// to the others only once those are full (two batches in flight each). Real MessageChannels stand
// between the router and this test, which plays each worker: it holds every batch it gets until
// the test answers it, so that what is in flight is the test's to choose.

import t from "tap";
import { MessageChannel, type MessagePort } from "node:worker_threads";
import { dist } from "./helpers/in-process-engine.js";
import type { ShardResponse } from "../src/engine/protocol.js";

const { QueryRouter } = (await import(dist("engine/query-router.js"))) as typeof import("../src/engine/query-router.js");
const { WorkerLoads } = (await import(dist("engine/worker-loads.js"))) as typeof import("../src/engine/worker-loads.js");
const codec = (await import(dist("engine/shard-codec.js"))) as typeof import("../src/engine/shard-codec.js");

interface Held {
  worker: number;
  requests: number;
  port: MessagePort;
}

/** A router over `workers` played workers, spreading over `spread`; every batch each gets is held in `held`. */
function playedWorkers(workers: number, spread: number) {
  const held: Held[] = [];
  const ports: MessagePort[] = [];
  const router = new QueryRouter(
    new WorkerLoads(workers),
    async (w) => {
      const { port1, port2 } = new MessageChannel();
      port2.on("message", (batch: { payload: Uint8Array }) => {
        held.push({ worker: w, requests: codec.decodeRequests(batch.payload).length, port: port2 });
      });
      ports.push(port1, port2);
      return port1;
    },
    spread,
  );
  /** Answers the held batches (all of them by default), each request with its facet values. */
  const answer = (which: Held[] = held.slice()): void => {
    for (const h of which) {
      held.splice(held.indexOf(h), 1);
      const replies = Array.from({ length: h.requests }, () => ({
        kind: "facet" as const,
        values: [["LEI", h.worker] as [string, number]],
      }));
      h.port.postMessage(codec.encodeResponses(replies, 0));
    }
  };
  const close = (): void => {
    router.close("test over");
    for (const p of ports) p.close();
  };
  return { router, held, answer, close };
}

const ask = (router: InstanceType<typeof QueryRouter>, n: number): Promise<ShardResponse>[] =>
  Array.from({ length: n }, () => router.request(0, 1, { kind: "facet", field: "country" }));

/** Waits until `held` has `n` batches (the router sends them a turn after the requests). */
async function batches(held: Held[], n: number): Promise<void> {
  for (let i = 0; i < 500 && held.length < n; i++) await new Promise((r) => setTimeout(r, 2));
}

const workersOf = (held: Held[]): number[] => [...new Set(held.map((h) => h.worker))].sort((a, b) => a - b);

t.test("no more workers than cores: a turn's requests are split over every idle worker", async (t) => {
  const { router, held, answer, close } = playedWorkers(4, 4);
  t.teardown(close);
  const answers = ask(router, 8);
  await batches(held, 4);
  t.same(workersOf(held), [0, 1, 2, 3], "each of the 4 idle workers gets a batch");
  t.same(
    held.map((h) => h.requests),
    [2, 2, 2, 2],
    "of 2 requests each",
  );
  answer();
  const settled = await Promise.all(answers);
  t.same(
    settled.map((r) => (r.kind === "facet" ? r.values[0][1] : -1)),
    [0, 0, 1, 1, 2, 2, 3, 3],
    "each request gets the answer of the worker it went to, in order",
  );
});

t.test("more workers than cores: batches go to as many as there are cores until those are full", async (t) => {
  const { router, held, answer, close } = playedWorkers(8, 2);
  t.teardown(close);
  const first = ask(router, 8);
  await batches(held, 2);
  t.same(workersOf(held), [0, 1], "a turn's requests are split over the first 2 workers only");
  t.same(
    held.map((h) => h.requests),
    [4, 4],
  );

  const second = ask(router, 2);
  await batches(held, 3);
  t.same(
    [held[2].worker, held[2].requests],
    [0, 2],
    "worker 0 still has room for a second batch: it takes the next turn's requests, no third worker is woken",
  );
  const third = ask(router, 1);
  await batches(held, 4);
  t.same([held[3].worker, held[3].requests], [1, 1], "then worker 1");

  const fourth = ask(router, 3);
  await batches(held, 5);
  t.equal(held.length, 5, "with 0 and 1 full, the next batch goes out");
  t.same([held[4]?.worker, held[4]?.requests], [2, 3], "to the lowest numbered of the other workers");

  answer();
  await Promise.all([...first, ...second, ...third, ...fourth]);
  const fifth = ask(router, 4);
  await batches(held, 2);
  t.same(workersOf(held), [0, 1], "once answered, the first 2 workers take the batches again");
  answer();
  await Promise.all(fifth);
});

t.test("more workers than cores: a first worker that is down is stood in for by the next", async (t) => {
  const { router, held, answer, close } = playedWorkers(4, 2);
  t.teardown(close);
  router.down(0, "gone");
  const answers = ask(router, 4);
  await batches(held, 2);
  t.same(workersOf(held), [1, 2], "the first 2 serving workers");
  answer();
  await Promise.all(answers);
});
