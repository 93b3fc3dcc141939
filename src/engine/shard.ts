// What a shard worker does: it builds the slices of a generation it is given from record batches,
// opens slices from their segments, serves the slices other workers opened from their memory
// (adopt), and answers batched requests, arriving on its query channel, against the generation
// and slice each batch names. Every worker serves every slice of a live generation: a slice's
// index is in memory once, shared, and each worker's engine instance has its own scratch, so
// there are no locks. A worker claims a number at start-up, which routes its tasks (pool.ts);
// the last number is the builder's, which builds a reload's slices and answers no requests.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { threadId } from "node:worker_threads";
import { workerData } from "piscina";
import type { ShardReply, ShardRequest, ShardTask, FinishResult } from "./protocol.js";
import { answerRequest } from "./slice-answer.js";
import { decodeRequests, encodeResponses } from "./shard-codec.js";
import { returnFreedMemory } from "../os/native-heap.js";
import { releaseMemory, releaseMemoryWhenGrown } from "../os/release-memory.js";
import { yieldToFront } from "../os/thread-priority.js";
import type { ChannelBatch, ChannelReply } from "./slice-channel.js";
import { docFileOf, writeSegment } from "./segment.js";
import { SliceBuilder } from "./slice-builder.js";
import { WasmSlice } from "./wasm-slice.js";

export interface ShardWorkerData {
  claims: SharedArrayBuffer;
}

const claims = new Int32Array((workerData as ShardWorkerData).claims);
const worker = claimNumber();
// the builder yields once more: to the workers answering requests, as they yield to the front
if (worker === claims.length - 1) yieldToFront();

function claimNumber(): number {
  for (let w = 0; w < claims.length; w++) {
    if (Atomics.compareExchange(claims, w, 0, threadId) === 0) {
      Atomics.notify(claims, w);
      return w;
    }
  }
  return -1;
}

/** Slices being built, by generation and slice. */
const building = new Map<number, Map<number, SliceBuilder>>();
const scratchDirs = new Map<number, string>();
/**
 * LEIDEX_TEST_FAIL_FINISH_SLICE=<s> (test-only, read once here): slice s fails its first finish
 * at once, and every other slice pauses 500 ms between moving its document file and writing its
 * segment, so tests see how a load failing while slices are mid-write cleans up.
 */
const testFailSlice = process.env.LEIDEX_TEST_FAIL_FINISH_SLICE === undefined ? null : Number(process.env.LEIDEX_TEST_FAIL_FINISH_SLICE);
let failNextFinish = testFailSlice !== null;
/**
 * LEIDEX_TEST_HOLD_FINISH_WHILE=<file> (test-only, read once here): each finish first holds its
 * thread while that file exists, as a large slice's build holds it, so tests see what requests
 * meanwhile meet.
 */
const testHoldFinishWhile = process.env.LEIDEX_TEST_HOLD_FINISH_WHILE ?? null;
/** LEIDEX_TEST_HOLD_DROP_WHILE=<file> (test-only): the same for each drop of a replaced generation. */
const testHoldDropWhile = process.env.LEIDEX_TEST_HOLD_DROP_WHILE ?? null;
/** A test hold: spins, holding this thread, while `file` exists. */
function holdWhile(file: string | null): void {
  while (file !== null && existsSync(file));
}
/** Served slices, by generation and slice. */
const generations = new Map<number, Map<number, WasmSlice>>();

export default function handle(task: ShardTask): unknown {
  switch (task.op) {
    case "begin":
      scratchDirs.set(task.gen, task.scratchDir);
      return worker;
    case "add":
      builderOf(task.gen, task.slice).addBatch(task.payload);
      releaseMemoryWhenGrown();
      return null;
    case "finish": {
      const builder = builderOf(task.gen, task.slice);
      building.get(task.gen)?.delete(task.slice);
      return thenReleaseMemory(finish(task.gen, task.slice, builder, task.segment));
    }
    case "open":
      return thenReleaseMemory(WasmSlice.open(task.segment, false).then((opened) => serve(task.gen, task.slice, opened)));
    case "adopt":
      serve(task.gen, task.slice, WasmSlice.adoptBeside(task.share, task.removals ?? null, servedSlices()));
      return null;
    case "removals": {
      const served = generations.get(task.gen)?.get(task.slice);
      if (!served) throw new Error(`worker ${worker}: slice ${task.slice} of generation ${task.gen} is not served here`);
      return served.removalsOf(task.leis);
    }
    case "drop":
      holdWhile(testHoldDropWhile);
      for (const builder of building.get(task.gen)?.values() ?? []) builder.abandon();
      building.delete(task.gen);
      scratchDirs.delete(task.gen);
      // collected once retire() has returned: nothing on this stack may still hold the slices
      if (retire(task.gen)) releaseMemory();
      return null;
    case "trim":
      returnFreedMemory();
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

/** The slice's builder, made on its first batch: a slice of a small load may get none. */
function builderOf(gen: number, slice: number): SliceBuilder {
  const scratchDir = scratchDirs.get(gen);
  if (scratchDir === undefined) throw new Error(`worker ${worker}: generation ${gen} is not being built`);
  let slices = building.get(gen);
  if (!slices) building.set(gen, (slices = new Map()));
  let builder = slices.get(slice);
  if (!builder) slices.set(slice, (builder = new SliceBuilder(join(scratchDir, `build-${gen}-slice-${slice}.docs`))));
  return builder;
}

/**
 * A batch's answers leave in parts once it has worked PART_AFTER_MS since the last part: after a
 * long query, the batch's answered requests do not wait for the rest of it.
 */
const PART_AFTER_MS = 1;

function answerBatch(batch: ChannelBatch, reply: (r: ChannelReply) => void): void {
  const slice = batch.slice;
  try {
    const gen = generations.get(batch.gen)?.get(slice);
    const requests = decodeRequests(batch.payload);
    let answers: ShardReply[] = [];
    let partStart = performance.now();
    for (let i = 0; i < requests.length; i++) {
      answers.push(answer(gen, batch.gen, slice, requests[i]));
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

function* servedSlices(): Iterable<WasmSlice> {
  for (const slices of generations.values()) yield* slices.values();
}

function retire(gen: number): boolean {
  const retired = generations.get(gen);
  if (!retired) return false;
  generations.delete(gen);
  for (const slice of retired.values()) slice.close();
  return true;
}

/**
 * Persists the built slice, lets its arrays go, then serves it from the segment just written:
 * read straight into the engine's memory, so the built arrays and the engine's copy of them are
 * never in memory together.
 */
async function finish(gen: number, slice: number, builder: SliceBuilder, segment: string): Promise<FinishResult> {
  if (failNextFinish && slice === testFailSlice) {
    failNextFinish = false;
    builder.abandon();
    throw new Error(`test: slice ${slice} refuses to finish (LEIDEX_TEST_FAIL_FINISH_SLICE)`);
  }
  holdWhile(testHoldFinishWhile);
  await persist(builder, segment, testFailSlice !== null && testFailSlice !== slice ? 500 : 0);
  releaseMemory();
  return serve(gen, slice, await WasmSlice.open(segment, true));
}

/** Its own frame, so that the built arrays are unreachable once it returns, before finish() collects. */
async function persist(builder: SliceBuilder, segment: string, pauseBeforeSegmentMs: number): Promise<void> {
  const data = builder.finish(docFileOf(segment));
  if (pauseBeforeSegmentMs > 0) await new Promise((r) => setTimeout(r, pauseBeforeSegmentMs));
  await writeSegment(segment, data);
}

function serve(gen: number, slice: number, served: WasmSlice): FinishResult {
  let slices = generations.get(gen);
  if (!slices) generations.set(gen, (slices = new Map()));
  slices.get(slice)?.close();
  slices.set(slice, served);
  return { docs: served.docs, leis: served.leiTable, share: served.share };
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

function answer(gen: WasmSlice | undefined, genId: number, slice: number, request: ShardRequest): ShardReply {
  if (!gen) return { kind: "error", message: `slice ${slice} has no generation ${genId}` };
  return answerRequest(gen, request);
}
