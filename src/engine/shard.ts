// What a shard worker does: it claims one slice at start-up, builds generations of that slice
// from record batches, and answers batched requests, arriving on its query channel, against the
// generation each one names.
// A slice is owned by exactly one worker, so there are no locks.

import { join } from "node:path";
import { threadId } from "node:worker_threads";
import { workerData } from "piscina";
import type { ShardReply, ShardRequest, ShardTask, FinishResult } from "./protocol.js";
import { oneTypoFirst, planFallback, worthGuessing } from "./planner.js";
import { decodeRequests, encodeResponses } from "./shard-codec.js";
import { releaseMemory, releaseMemoryWhenGrown } from "../os/release-memory.js";
import type { ChannelBatch, ChannelReply } from "./slice-channel.js";
import { docFileOf, writeSegment } from "./segment.js";
import { SliceBuilder } from "./slice-builder.js";
import { WasmSlice } from "./wasm-slice.js";

export interface ShardWorkerData {
  claims: SharedArrayBuffer;
}

const claims = new Int32Array((workerData as ShardWorkerData).claims);
const slice = claimSlice();

function claimSlice(): number {
  for (let s = 0; s < claims.length; s++) {
    if (Atomics.compareExchange(claims, s, 0, threadId) === 0) {
      Atomics.notify(claims, s);
      return s;
    }
  }
  return -1;
}

const building = new Map<number, SliceBuilder>();
/**
 * LEIDEX_TEST_FAIL_FINISH_SLICE=<s> (test-only, read once here): slice s fails its first finish
 * at once, and every other slice pauses 500 ms between moving its document file and writing its
 * segment, so tests see how a load failing while slices are mid-write cleans up.
 */
const testFailSlice = process.env.LEIDEX_TEST_FAIL_FINISH_SLICE === undefined ? null : Number(process.env.LEIDEX_TEST_FAIL_FINISH_SLICE);
let failNextFinish = testFailSlice === slice;
const pauseBeforeSegmentMs = testFailSlice !== null && testFailSlice !== slice ? 500 : 0;
const EXPORT_PAGE_BYTES = 256 * 1024;
const generations = new Map<number, WasmSlice>();

export default function handle(task: ShardTask): unknown {
  switch (task.op) {
    case "begin":
      building.set(task.gen, new SliceBuilder(join(task.scratchDir, `build-${task.gen}-slice-${slice}.docs`)));
      return slice;
    case "add": {
      const builder = building.get(task.gen);
      if (!builder) throw new Error(`slice ${slice}: generation ${task.gen} is not being built`);
      builder.addBatch(task.payload);
      releaseMemoryWhenGrown();
      return null;
    }
    case "finish": {
      const builder = building.get(task.gen);
      if (!builder) throw new Error(`slice ${slice}: generation ${task.gen} is not being built`);
      building.delete(task.gen);
      return thenReleaseMemory(finish(task.gen, builder, task.segment));
    }
    case "open":
      return thenReleaseMemory(WasmSlice.open(task.segment, false).then((opened) => serveGeneration(task.gen, opened)));
    case "drop":
      building.get(task.gen)?.abandon();
      building.delete(task.gen);
      // collected once retire() has returned: nothing on this stack may still hold the slice
      if (retire(task.gen)) releaseMemory();
      return null;
    case "attach": {
      const port = task.port;
      port.on("message", (batch: ChannelBatch) =>
        answerBatch(batch, (reply) => port.postMessage(reply, reply instanceof Uint8Array ? [reply.buffer as ArrayBuffer] : [])),
      );
      return null;
    }
  }
}

/**
 * A batch's answers leave in parts once it has worked PART_AFTER_MS since the last part: after a
 * long query, the batch's answered requests do not wait for the rest of it.
 */
const PART_AFTER_MS = 1;

function answerBatch(batch: ChannelBatch, reply: (r: ChannelReply) => void): void {
  try {
    const gen = generations.get(batch.gen);
    const requests = decodeRequests(batch.payload);
    let answers: ShardReply[] = [];
    let partStart = performance.now();
    for (let i = 0; i < requests.length; i++) {
      answers.push(answer(gen, batch.gen, requests[i]));
      if (i + 1 < requests.length && performance.now() - partStart >= PART_AFTER_MS) {
        reply(encodeResponses(answers, slice, false));
        answers = [];
        partStart = performance.now();
      }
    }
    reply(encodeResponses(answers, slice));
  } catch (err) {
    reply({ error: `slice ${slice} could not answer a batch: ${(err as Error).message}` });
  }
}

function retire(gen: number): boolean {
  const retired = generations.get(gen);
  if (!retired) return false;
  generations.delete(gen);
  retired.close();
  return true;
}

/**
 * Persists the built slice, lets its arrays go, then serves it from the segment just written:
 * read straight into the engine's memory, so the built arrays and the engine's copy of them are
 * never in memory together.
 */
async function finish(gen: number, builder: SliceBuilder, segment: string): Promise<FinishResult> {
  if (failNextFinish) {
    failNextFinish = false;
    builder.abandon();
    throw new Error(`test: slice ${slice} refuses to finish (LEIDEX_TEST_FAIL_FINISH_SLICE)`);
  }
  await persist(builder, segment);
  releaseMemory();
  return serveGeneration(gen, await WasmSlice.open(segment, true));
}

/** Its own frame, so that the built arrays are unreachable once it returns, before finish() collects. */
async function persist(builder: SliceBuilder, segment: string): Promise<void> {
  const data = builder.finish(docFileOf(segment));
  if (pauseBeforeSegmentMs > 0) await new Promise((r) => setTimeout(r, pauseBeforeSegmentMs));
  await writeSegment(segment, data);
}

function serveGeneration(gen: number, built: WasmSlice): FinishResult {
  generations.set(gen, built);
  return { docs: built.docs, leis: built.leiTable };
}

/**
 * Collects garbage once `work` has finished, inside the task: by then nothing holds the build's
 * (or the segment reader's) arrays, which the engine has copied, and the caller learns the
 * slice is served only once its memory is given back.
 */
async function thenReleaseMemory<T>(work: Promise<T>): Promise<T> {
  const result = await work;
  releaseMemory();
  return result;
}

function answer(gen: WasmSlice | undefined, genId: number, request: ShardRequest): ShardReply {
  if (!gen) return { kind: "error", message: `slice ${slice} has no generation ${genId}` };
  try {
    switch (request.kind) {
      case "search": {
        const exact = gen.search(request.query);
        // Guessing the typo round from this slice's own facts saves a round trip whenever the
        // front's plan, made over every slice, comes out the same; it checks that.
        const full = request.guess && worthGuessing(exact) ? planFallback([exact]) : null;
        if (!full || full.typoMask === 0) return { kind: "search", ...exact };
        const round = oneTypoFirst([exact], full) ?? full;
        const guess = gen.retryWithTypos(round.typoMask, round.maxTypos);
        // written out, not spread: see roundQuery() in collection.ts
        return {
          kind: "search",
          ...exact,
          guess: {
            found: guess.found,
            hits: guess.hits,
            facets: guess.facets,
            plan: guess.plan,
            typoMask: round.typoMask,
            maxTypos: round.maxTypos,
          },
        };
      }
      case "facet":
        return { kind: "facet", values: gen.facetValues(request.field) };
      case "export":
        return { kind: "export", ...gen.exportLines(request.filters, request.exclude, request.from, EXPORT_PAGE_BYTES) };
    }
  } catch (err) {
    return { kind: "error", message: (err as Error).message };
  }
}
