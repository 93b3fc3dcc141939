// A request a front thread relayed, as the main thread's pipeline sees it: the uWS request and
// response calls the pipeline makes (server.ts, request-body.ts) answered from the relayed line,
// headers and body chunks, and its answer posted back for the thread to write. A streamed answer
// keeps uWS's backpressure: a write reports "full" while more than HIGH_WATER bytes are on their
// way to the client, and the writable callback runs once the thread reports them taken.

import type * as UWS from "uWebSockets.js";
import type { FromFront, ToFront } from "./front-protocol.js";

const HIGH_WATER = 1 << 20;

type RequestMessage = Extract<FromFront, { op: "request" }>;

/** The uWS request calls the pipeline makes, from the relayed line and headers. */
class RelayedRaw {
  constructor(private readonly m: RequestMessage) {}

  getCaseSensitiveMethod(): string {
    return this.m.method;
  }

  getMethod(): string {
    return this.m.method.toLowerCase();
  }

  getUrl(): string {
    return this.m.url;
  }

  getQuery(): string {
    return this.m.query;
  }

  getParameter(i: number): string | undefined {
    return this.m.params[i];
  }

  /** the first header of that (lower-case) name, as uWS gives it */
  getHeader(name: string): string {
    for (const [k, v] of this.m.headers) if (k === name) return v;
    return "";
  }

  forEach(each: (name: string, value: string) => void): void {
    for (const [k, v] of this.m.headers) each(k, v);
  }
}

/** The uWS response calls the pipeline makes, posted back to the thread that holds the connection. */
export class RelayedResponse {
  private status = "200 OK";
  private readonly headers: [string, string][] = [];
  private headSent = false;
  private finished = false;
  private aborted = false;
  private unacked = 0;
  private onAbort: (() => void) | null = null;
  private onChunk: ((chunk: ArrayBuffer, last: boolean) => void) | null = null;
  private writable: ((offset: number) => boolean) | null = null;

  constructor(
    private readonly rid: number,
    private readonly peer: string,
    private readonly post: (message: ToFront, transfer?: ArrayBuffer[]) => void,
    private readonly done: (rid: number) => void,
  ) {}

  cork(work: () => void): this {
    work();
    return this;
  }

  writeStatus(status: string | Uint8Array): this {
    this.status = text(status);
    return this;
  }

  writeHeader(name: string | Uint8Array, value: string | Uint8Array): this {
    this.headers.push([text(name), text(value)]);
    return this;
  }

  write(chunk: Uint8Array | string): boolean {
    if (this.finished || this.aborted) return false;
    this.sendHead();
    const bytes = own(chunk);
    this.unacked += bytes.byteLength;
    this.post({ op: "write", rid: this.rid, chunk: bytes }, [bytes.buffer as ArrayBuffer]);
    return this.unacked <= HIGH_WATER;
  }

  end(body?: Uint8Array | string, closeConnection = false): this {
    if (this.finished || this.aborted) return this;
    this.finished = true;
    const bytes = body === undefined ? null : own(body);
    this.sendHead();
    this.post({ op: "end", rid: this.rid, body: bytes, close: closeConnection }, bytes ? [bytes.buffer as ArrayBuffer] : []);
    this.done(this.rid);
    return this;
  }

  close(): this {
    if (!this.finished && !this.aborted) this.post({ op: "close", rid: this.rid });
    this.finished = true;
    this.done(this.rid);
    return this;
  }

  onAborted(handler: () => void): this {
    this.onAbort = handler;
    return this;
  }

  onData(handler: (chunk: ArrayBuffer, last: boolean) => void): this {
    this.onChunk = handler;
    return this;
  }

  onWritable(handler: (offset: number) => boolean): this {
    this.writable = handler;
    return this;
  }

  getRemoteAddressAsText(): ArrayBuffer {
    return new TextEncoder().encode(this.peer).buffer as ArrayBuffer;
  }

  /** From the thread: a chunk of the request's body. */
  body(chunk: Uint8Array, last: boolean): void {
    this.onChunk?.(chunk.buffer.slice(chunk.byteOffset, chunk.byteOffset + chunk.byteLength) as ArrayBuffer, last);
  }

  /** From the thread: the client went away. */
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.done(this.rid);
    this.onAbort?.();
  }

  /** From the thread: the client took `bytes` of the streamed answer. */
  drained(bytes: number): void {
    const wasFull = this.unacked > HIGH_WATER;
    this.unacked -= bytes;
    if (wasFull && this.unacked <= HIGH_WATER && this.writable) {
      const writable = this.writable;
      this.writable = null;
      writable(0);
    }
  }

  private sendHead(): void {
    if (this.headSent) return;
    this.headSent = true;
    this.post({ op: "head", rid: this.rid, status: this.status, headers: this.headers });
  }
}

function text(value: string | Uint8Array): string {
  return typeof value === "string" ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString();
}

/** A copy of its own, to transfer. */
function own(chunk: Uint8Array | string): Uint8Array {
  if (typeof chunk === "string") return new Uint8Array(Buffer.from(chunk));
  const copy = new Uint8Array(chunk.byteLength);
  copy.set(chunk);
  return copy;
}

/** The relayed request, as the uWS objects the pipeline takes. */
export function relayedPair(m: RequestMessage, response: RelayedResponse): { res: UWS.HttpResponse; raw: UWS.HttpRequest } {
  return { res: response as unknown as UWS.HttpResponse, raw: new RelayedRaw(m) as unknown as UWS.HttpRequest };
}
