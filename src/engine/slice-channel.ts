// The front's end of a query channel to one shard worker: a MessagePort of its own, beside the
// Piscina pool. On a bare pool, a Piscina task cost the caller about twice the CPU of a port
// message and promoted about 1 KB to its old generation; queries are the one traffic where that
// counts, so loads and drops stay Piscina tasks. The worker answers a port's batches in the
// order they came, each in one or more parts (a long batch sends what it has answered so far
// once it has worked a while), so the parts feed a FIFO of waiting batches.

import type { MessagePort } from "node:worker_threads";
import { isLastPart } from "./shard-codec.js";

/** A batch of encoded requests against one slice of one generation (shard-codec.ts). */
export interface ChannelBatch {
  gen: number;
  slice: number;
  payload: Uint8Array;
}

/** What the worker sends back: encoded answers to the batch's next requests, or why the rest failed. */
export type ChannelReply = Uint8Array | { error: string };

interface Waiting {
  onPart: (bytes: Uint8Array) => void;
  resolve: () => void;
  reject: (err: Error) => void;
}

export class SliceChannel {
  private readonly waiting: Waiting[] = [];
  private closedBecause: string | null = null;

  constructor(private readonly port: MessagePort) {
    port.on("message", (reply: ChannelReply) => {
      const next = this.waiting[0];
      if (!next) return;
      if (reply instanceof Uint8Array) {
        next.onPart(reply);
        if (!isLastPart(reply)) return;
        this.waiting.shift();
        next.resolve();
      } else {
        this.waiting.shift();
        next.reject(new Error(reply.error));
      }
      if (this.waiting.length === 0) port.unref();
    });
    // the worker's end closes when its thread dies: nothing in flight will be answered
    port.on("close", () => this.close("its shard worker is gone"));
    // an idle channel does not keep the process alive; one with batches in flight does
    port.unref();
  }

  get open(): boolean {
    return this.closedBecause === null;
  }

  /** Sends a batch; `onPart` gets each part of its answers in order, and the promise settles after the last. */
  ask(batch: ChannelBatch, onPart: (bytes: Uint8Array) => void): Promise<void> {
    if (this.closedBecause !== null) return Promise.reject(new Error(this.closedBecause));
    return new Promise((resolve, reject) => {
      // posted first: a batch that cannot be sent must not take the place of one that was
      this.port.postMessage(batch, [batch.payload.buffer as ArrayBuffer]);
      if (this.waiting.length === 0) this.port.ref();
      this.waiting.push({ onPart, resolve, reject });
    });
  }

  close(reason: string): void {
    if (this.closedBecause !== null) return;
    this.closedBecause = reason;
    for (const w of this.waiting.splice(0)) w.reject(new Error(reason));
    this.port.close();
  }
}
