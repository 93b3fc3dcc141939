// The uWebSockets.js front: one pipeline for every route (framing → rate limit → guard →
// handler → error mapping), gzip, metrics and graceful shutdown. Handlers get a plain request
// snapshot (uWS requests die when the handler returns), a Reply that knows about aborted
// connections and corking, and the principal their route's guard admitted.

import uWS, { LISTEN_EXCLUSIVE_PORT } from "./uws.js";
import type * as UWS from "uWebSockets.js";
import { gzipSync } from "node:zlib";
import type { Metrics } from "./metrics.js";
import type { RateLimiter } from "./rate-limit.js";
import { answerWriteFailure } from "../store/write-failure.js";
import { ERROR_BODY } from "./error-shapes.js";
import { REFUSED, type BodyTypes, type DeclaredRoute, type Handler, type Method, type RouteOptions } from "./route.js";
import { TrustedProxies } from "./trusted-proxies.js";
import {
  BodyBudget,
  BodyBudgetError,
  BodyReceiver,
  BodyTimeoutError,
  BodyTooLargeError,
  uploadBody,
  type UploadTarget,
} from "./request-body.js";

export { BodyTooLargeError } from "./request-body.js";
export type { Handler, RouteOptions } from "./route.js";

export interface Request {
  method: string;
  path: string;
  rawQuery: string;
  params: string[];
  /** The client's address; read it before the response is sent. */
  readonly ip: string;
  /** A request header; readable only before the handler's first await (uWS frees the request). */
  header(name: string): string;
  /** Every header, lower-case names; like header(), only before the first await. */
  headers(): [string, string][];
  /**
   * The whole body, for routes with maxBodyBytes (else empty). Reading starts as the request
   * arrives; a body over the cap rejects with BodyTooLargeError, which the server answers 413.
   */
  body(): Promise<Buffer>;
  /**
   * For routes with uploadDir: the body written to a fresh file there as it arrives (never held
   * in memory); resolves with the file's path. Over maxUploadBytes it rejects with
   * BodyTooLargeError. Call it before the handler's first await; a body not taken is discarded.
   */
  upload(): Promise<string>;
}

const NO_BODY: Promise<Buffer> = Promise.resolve(Buffer.alloc(0));
/** Request bodies held in memory across all connections; beyond it, 503 + Retry-After. */
const BODY_BUDGET_BYTES = positiveEnv("LEIDEX_BODY_BUDGET_BYTES", 128 * 1024 * 1024);
/** A body (not an upload, which streams to disk) must arrive in full within this time, else 408. */
const BODY_DEADLINE_SECONDS = positiveEnv("LEIDEX_BODY_DEADLINE_SECONDS", 30);

function positiveEnv(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

const STATUS_TEXT: Record<number, string> = {
  200: "OK",
  201: "Created",
  202: "Accepted",
  204: "No Content",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  408: "Request Timeout",
  409: "Conflict",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
  507: "Insufficient Storage",
};
const GZIP_MIN_BYTES = 1024;
/** zlib's level for answers (also where they are compressed off the front, http/front-work.ts) */
export const GZIP_LEVEL = 4;

/**
 * Fixed header text as bytes, encoded once: uWS takes bytes as they are, where a string is
 * measured and encoded to UTF-8 again on every call.
 */
const encoded = new Map<string, Buffer>();
const MAX_ENCODED = 256;
function bytesOf(text: string): Buffer {
  let bytes = encoded.get(text);
  if (!bytes) {
    bytes = Buffer.from(text);
    if (encoded.size < MAX_ENCODED) encoded.set(text, bytes); // the texts are the code's own; a bound all the same
  }
  return bytes;
}

const CORS_HEADERS: [Buffer, Buffer][] = [
  [bytesOf("Access-Control-Allow-Origin"), bytesOf("*")],
  [bytesOf("Access-Control-Expose-Headers"), bytesOf("X-RateLimit-Limit, X-RateLimit-Remaining, Retry-After")],
];
const CONTENT_TYPE = bytesOf("Content-Type");
const CONTENT_ENCODING = bytesOf("Content-Encoding");
const GZIP = bytesOf("gzip");
const VARY = bytesOf("Vary");
const ACCEPT_ENCODING = bytesOf("Accept-Encoding");

const statusLine = (status: number): Buffer => bytesOf(`${status} ${STATUS_TEXT[status] ?? ""}`);

export class Reply {
  private readonly headers: [string | Buffer, string | Buffer][] = [];
  aborted = false;
  /** a streamed write waiting for the client to drain (at most one: the writer awaits each write) */
  private waitingWrite: ((ok: boolean) => void) | null = null;
  private stallTimer: NodeJS.Timeout | null = null;
  sent = false;
  status = 0;
  cors = false;
  /** end the connection after this answer (a refused body, bad framing, draining) */
  closeConnection = false;
  /** the request, when it has a body: one left unread also ends the connection */
  bodyOf: UwsRequest | null = null;

  constructor(
    private readonly res: UWS.HttpResponse,
    /** whether the client takes gzip (Accept-Encoding) */
    readonly acceptsGzip: boolean,
    private readonly route: RouteOptions<unknown>,
    private readonly started: number,
    private readonly done: RequestDone,
  ) {}

  private onSent(status: number): void {
    this.done.requestDone(this.route.name, status, this.started);
  }

  /** The client went away (uWS onAborted): nothing more can be written. */
  markAborted(): void {
    this.aborted = true;
    this.settleWrite(false);
  }

  private settleWrite(ok: boolean): void {
    if (this.stallTimer) {
      clearTimeout(this.stallTimer);
      this.stallTimer = null;
    }
    const waiting = this.waitingWrite;
    this.waitingWrite = null;
    waiting?.(ok);
  }

  /** A streamed write waited stallMs for the client: close the connection, which frees what uWS holds for it. */
  private closeStalled(): void {
    this.stallTimer = null;
    if (this.aborted) return;
    this.aborted = true;
    this.res.close();
    this.settleWrite(false);
  }

  header(name: string, value: string): this {
    this.headers.push([name, value]);
    return this;
  }

  /**
   * A header whose text is fixed for a long time (an ETag per load, a Cache-Control): kept as
   * bytes and encoded once, as the front's own headers are, not again on every answer.
   */
  fixedHeader(name: string, value: string): this {
    this.headers.push([bytesOf(name), bytesOf(value)]);
    return this;
  }

  /** A header set anew: an earlier value of the same name is dropped. */
  replaceHeader(name: string, value: string): this {
    const at = this.headers.findIndex(([n]) => n === name);
    if (at < 0) return this.header(name, value);
    this.headers[at] = [name, value];
    return this;
  }

  json(status: number, body: string | Uint8Array): void {
    this.send(status, body, "application/json; charset=utf-8");
  }

  error(status: number, message: string): void {
    this.json(status, ERROR_BODY[this.route.area](message));
  }

  /**
   * A streamed 200 answer: write() resolves once uWS has taken the chunk and has room for more
   * (backpressure), with false when the client is gone; end() finishes it. A write the client
   * leaves waiting `stallMs` (0: for ever) closes the connection and resolves false.
   */
  stream(contentType: string, stallMs = 0): { write(chunk: Uint8Array): Promise<boolean>; end(): void } {
    this.sent = true;
    this.status = 200;
    const res = this.res;
    if (!this.aborted) {
      res.cork(() => {
        res.writeStatus(statusLine(200));
        res.writeHeader(CONTENT_TYPE, bytesOf(contentType));
        if (this.cors) for (const [k, v] of CORS_HEADERS) res.writeHeader(k, v);
        for (const [k, v] of this.headers) res.writeHeader(k, v);
      });
    }
    let ended = false;
    return {
      write: (chunk) =>
        new Promise<boolean>((resolve) => {
          if (this.aborted || ended) {
            resolve(false);
            return;
          }
          let ok = true;
          res.cork(() => {
            ok = res.write(chunk);
          });
          if (ok) {
            resolve(true);
            return;
          }
          this.waitingWrite = resolve;
          if (stallMs > 0) this.stallTimer = setTimeout(() => this.closeStalled(), stallMs);
          res.onWritable(() => {
            this.settleWrite(!this.aborted);
            return true;
          });
        }),
      end: () => {
        if (ended) return;
        ended = true;
        if (!this.aborted) res.cork(() => res.end(undefined, this.closeConnection));
        this.onSent(200);
      },
    };
  }

  /** `gzipped`: the same body compressed ahead (a fixed asset), sent where the client takes gzip. */
  send(status: number, body: string | Uint8Array, contentType: string, gzipped?: Uint8Array): void {
    if (this.sent) return;
    this.sent = true;
    this.status = status;
    if (this.aborted) {
      this.onSent(status);
      return;
    }
    let payload: string | Uint8Array = body;
    let compressed = false;
    if (this.acceptsGzip && gzipped !== undefined) {
      payload = gzipped;
      compressed = true;
    } else if (this.acceptsGzip && (typeof body === "string" ? Buffer.byteLength(body) : body.byteLength) >= GZIP_MIN_BYTES) {
      payload = gzipSync(body, { level: GZIP_LEVEL });
      compressed = true;
    }
    this.res.cork(() => {
      this.res.writeStatus(statusLine(status));
      this.res.writeHeader(CONTENT_TYPE, bytesOf(contentType));
      if (compressed) this.res.writeHeader(CONTENT_ENCODING, GZIP);
      this.res.writeHeader(VARY, ACCEPT_ENCODING);
      if (this.cors) for (const [k, v] of CORS_HEADERS) this.res.writeHeader(k, v);
      for (const [k, v] of this.headers) this.res.writeHeader(k, v);
      this.res.end(payload, this.closeConnection || (this.bodyOf?.unreadBody ?? false));
    });
    this.onSent(status);
  }
}

/** Where a Reply reports that it was sent. */
interface RequestDone {
  requestDone(route: string, status: number, started: number): void;
}

/**
 * A handler that threw, or whose promise failed: a refused body is answered (413, 408, or 503
 * when the server holds too many bodies); anything else is a 500. A body too slow closes its
 * connection; the rest of a refused one is read and dropped when it is short (request-body.ts).
 */
function failed(reply: Reply, options: RouteOptions<unknown>, err: unknown): void {
  const bodyStatus =
    err instanceof BodyTooLargeError ? 413 : err instanceof BodyTimeoutError ? 408 : err instanceof BodyBudgetError ? 503 : 0;
  if (bodyStatus !== 0) {
    if (bodyStatus === 408) reply.closeConnection = true;
    if (bodyStatus === 503) reply.header("Retry-After", "1");
    reply.error(bodyStatus, (err as Error).message);
    return;
  }
  if (answerWriteFailure(reply, options.name, err)) return; // a full or failing disk: 503, logged once a minute
  console.error(`${options.name}: ${(err as Error)?.stack ?? String(err)}`);
  reply.error(500, "internal error");
}

/** The handler's view of one uWS request; uWS frees its request object when the handler first awaits. */
class UwsRequest implements Request {
  readonly method: string;
  readonly path: string;
  readonly rawQuery: string;
  readonly params: string[] = [];
  private live = true;
  private aborted = false;
  private address: string | null = null;
  private receiver: BodyReceiver | null = null;
  private uploadTo: UploadTarget | null = null;
  private uploading: Promise<string> | null = null;

  constructor(
    private readonly res: UWS.HttpResponse,
    private readonly raw: UWS.HttpRequest,
    paramCount: number,
    private readonly proxies: TrustedProxies | null,
  ) {
    this.method = raw.getCaseSensitiveMethod ? raw.getCaseSensitiveMethod() : raw.getMethod().toUpperCase();
    this.path = raw.getUrl();
    this.rawQuery = raw.getQuery() ?? "";
    for (let i = 0; i < paramCount; i++) this.params.push(decodeURIComponentSafe(raw.getParameter(i) ?? ""));
    // behind a trusted proxy the client is named by a header, which is gone after the handler returns
    if (proxies !== null) this.address = proxies.clientOf(this.peer(), raw.getHeader("x-forwarded-for"));
  }

  /**
   * Asked of the socket only when read (getpeername is a system call). A client gone has none,
   * and neither has an answered request: uWS refuses access to a response once it has ended.
   */
  get ip(): string {
    if (this.address === null) this.address = this.peer();
    return this.address;
  }

  private peer(): string {
    try {
      return this.aborted ? "" : Buffer.from(this.res.getRemoteAddressAsText()).toString();
    } catch {
      return "";
    }
  }

  header(name: string): string {
    if (!this.live) throw new Error(`header '${name}' read after the request was released`);
    return this.raw.getHeader(name.toLowerCase());
  }

  headers(): [string, string][] {
    if (!this.live) throw new Error("headers read after the request was released");
    const all: [string, string][] = [];
    this.raw.forEach((k, v) => {
      all.push([k, v]);
    });
    return all;
  }

  body(): Promise<Buffer> {
    return this.receiver ? this.receiver.claim() : NO_BODY;
  }

  /**
   * A body still arriving that the answer leaves unread, longer than uWS should read and drop
   * (request-body.ts), or an upload still arriving: the answer closes the connection.
   */
  get unreadBody(): boolean {
    if (this.receiver) return this.receiver.restTooLong;
    return this.uploadTo !== null && !this.uploadTo.ended;
  }

  upload(): Promise<string> {
    if (!this.uploadTo) return Promise.reject(new Error("this route takes no upload"));
    this.uploading ??= uploadBody(this.uploadTo);
    return this.uploading;
  }

  expectBody(limit: number, budget: BodyBudget): void {
    const declared = Number(this.raw.getHeader("content-length") || "0");
    const chunked = this.raw.getHeader("transfer-encoding") !== "";
    this.receiver = new BodyReceiver(this.res, limit, declared, chunked, budget, BODY_DEADLINE_SECONDS);
  }

  acceptUpload(dir: string, limit: number): void {
    const target: UploadTarget = {
      dir,
      limit,
      declared: Number(this.raw.getHeader("content-length") || "0"),
      chunked: this.raw.getHeader("transfer-encoding") !== "",
      ended: false,
      sink: null,
      onAbort: null,
    };
    this.uploadTo = target;
    this.res.onData((chunk, isLast) => {
      if (isLast) target.ended = true;
      target.sink?.(chunk, isLast);
    });
  }

  /** The handler returned (or awaited): uWS's request object is gone, and an unclaimed body is dropped. */
  release(): void {
    this.live = false;
    this.receiver?.dropUnclaimed();
  }

  markAborted(): void {
    this.aborted = true;
    this.receiver?.abort();
    this.uploadTo?.onAbort?.();
  }
}

export class HttpServer {
  readonly app = uWS.App();
  private listenSocket: UWS.us_listen_socket | null = null;
  private inFlight = 0;
  private draining = false;
  private readonly preflight = new Map<string, Set<string>>();
  private readonly bodyBudget = new BodyBudget(BODY_BUDGET_BYTES);
  /** every route registered, in order: the OpenAPI document is generated from them */
  readonly routes: DeclaredRoute[] = [];
  /** each route's pipeline, in the order of `routes`: what a request a front thread forwards runs through */
  private readonly pipelines: ((res: UWS.HttpResponse, raw: UWS.HttpRequest) => void)[] = [];
  /** requests that arrived on this thread's connections (a relayed one counts where it arrived) */
  received = 0;
  /** with front threads: the app that accepts connections and hands them round robin to every thread's app */
  private acceptor: UWS.TemplatedApp | null = null;

  constructor(
    private readonly metrics: Metrics,
    private readonly limiter: RateLimiter,
    private readonly proxies: TrustedProxies | null = null,
  ) {}

  route<P = undefined>(method: Method | "any", pattern: string, options: RouteOptions<P>, handler: Handler<P>): void {
    const paramCount = paramCountOf(pattern);
    this.routes.push({ method, pattern, options: options as RouteOptions<unknown> });
    const pipeline = (res: UWS.HttpResponse, req: UWS.HttpRequest): void => this.dispatch(res, req, paramCount, options, handler);
    this.pipelines.push(pipeline);
    this.app[method](pattern, pipeline);
    if (options.cors) this.allowPreflight(pattern, method);
  }

  /**
   * A route a front thread does not answer itself: uWS matches it here as on the main thread,
   * and `relay` hands the request over (http/front-thread.ts).
   */
  relayRoute(method: Method | "any", pattern: string, cors: boolean, relay: (res: UWS.HttpResponse, raw: UWS.HttpRequest) => void): void {
    this.app[method](pattern, relay);
    if (cors) this.allowPreflight(pattern, method);
  }

  /** A request a front thread relayed for routes[index], run through that route's pipeline here. */
  dispatchRelayed(index: number, res: UWS.HttpResponse, raw: UWS.HttpRequest): void {
    this.received--;
    this.pipelines[index](res, raw);
  }

  /** CORS preflight for a pattern, naming every method its CORS routes take (uWS aborts on a duplicate route: one handler a pattern). */
  private allowPreflight(pattern: string, method: Method | "any"): void {
    let methods = this.preflight.get(pattern);
    if (methods === undefined) {
      methods = new Set(["OPTIONS"]);
      this.preflight.set(pattern, methods);
      const allowed = methods;
      this.app.options(pattern, (res) => {
        res.cork(() => {
          res.writeStatus(statusLine(204));
          for (const [k, v] of CORS_HEADERS) res.writeHeader(k, v);
          res.writeHeader("Access-Control-Allow-Methods", [...allowed].sort().join(", "));
          res.writeHeader("Access-Control-Allow-Headers", "*");
          res.writeHeader("Access-Control-Max-Age", "86400");
          res.end();
        });
      });
    }
    if (method !== "any") methods.add(method === "del" ? "DELETE" : method.toUpperCase());
  }

  /**
   * Spends `weight` of the address's tokens and sets the rate-limit headers; false when it has
   * too few, with the 429 answered. The front charges each request of a rate-limited route one
   * token; a route whose weight is its body ("by-weight") charges the rest here once it knows it.
   */
  rateLimit(ip: string, weight: number, reply: Reply): boolean {
    if (!this.limiter.enabled) return true;
    const decision = this.limiter.take(ip, weight);
    reply.replaceHeader("X-RateLimit-Limit", String(decision.limit));
    reply.replaceHeader("X-RateLimit-Remaining", String(decision.remaining));
    if (decision.allowed) return true;
    this.metrics.increment("leidex_rate_limited_total", "Requests refused by the per-IP rate limit.");
    reply.header("Retry-After", String(decision.retryAfterSeconds));
    const batch = weight > 1 ? " (a batch counts one per item)" : "";
    reply.error(429, `rate limit exceeded: ${decision.limit} requests per window${batch}; retry after ${decision.retryAfterSeconds} s`);
    return false;
  }

  /** A reply was sent: one request less in flight, and its metrics. */
  requestDone(route: string, status: number, started: number): void {
    this.inFlight--;
    this.metrics.observe(route, status, performance.now() - started);
  }

  // Per request: an UwsRequest, a Reply and the abort handler, nothing else. Both are classes
  // with their methods on the prototype: a request as an object literal with a getter (the lazy
  // address) made the front promote ~400 B a request to its old generation and collect it
  // every second under load; with a closure per method it allocated more besides.
  private dispatch<P>(
    res: UWS.HttpResponse,
    raw: UWS.HttpRequest,
    paramCount: number,
    options: RouteOptions<P>,
    handler: Handler<P>,
  ): void {
    const started = performance.now();
    this.received++;
    const req = new UwsRequest(res, raw, paramCount, this.proxies);
    // Only routes that take a body pay for one. uWS hands the body over in chunks right after
    // the handler is called; the handler claims it (after checking the caller's key) before its
    // first await, or it is dropped. An upload is written to disk only once the handler takes it.
    if (options.maxBodyBytes !== undefined) req.expectBody(options.maxBodyBytes, this.bodyBudget);
    if (options.uploadDir !== undefined) req.acceptUpload(options.uploadDir, options.maxUploadBytes ?? Number.MAX_SAFE_INTEGER);
    this.inFlight++;
    const reply = new Reply(res, acceptsGzip(raw.getHeader("accept-encoding")), options as RouteOptions<unknown>, started, this);
    res.onAborted(() => {
      req.markAborted();
      reply.markAborted();
    });
    if (options.cors) reply.cors = true;
    if (this.draining) reply.closeConnection = true;

    // Framing uWS lets through: refused before anything reads the body (RFC 9112 section 6). GET
    // and HEAD, the bulk of the traffic, skip the check: their bodies are never read, nginx and
    // Caddy refuse such framing themselves, and the header reads would tax every lookup.
    const bodyless = req.method === "GET" || req.method === "HEAD";
    const contentLength = bodyless ? "" : raw.getHeader("content-length");
    const transferEncoding = bodyless ? "" : raw.getHeader("transfer-encoding");
    if (contentLength !== "" || transferEncoding !== "") {
      reply.bodyOf = req;
      const refusal = framingRefusal(
        raw,
        contentLength,
        transferEncoding,
        options.maxBodyBytes === undefined ? null : (options.bodyTypes ?? "json"),
      );
      if (refusal !== null) {
        req.release();
        reply.closeConnection = true;
        reply.error(refusal.status, refusal.message);
        return;
      }
    }

    // the address is read only when a limit applies: it costs a system call (getpeername)
    if (options.rateLimited && this.limiter.enabled && !this.rateLimit(req.ip, 1, reply)) return;
    // the guard reads the request's headers, so it runs before the handler's first await
    try {
      let principal = undefined as P;
      if (options.auth !== undefined) {
        const admitted = options.auth.admit(req, reply);
        if (admitted === REFUSED) {
          req.release();
          return;
        }
        principal = admitted;
      }
      const result = handler(req, reply, principal);
      req.release();
      if (result instanceof Promise) result.catch((err: unknown) => failed(reply, options as RouteOptions<unknown>, err));
    } catch (err) {
      req.release();
      failed(reply, options as RouteOptions<unknown>, err);
    }
  }

  /**
   * Listens on host:port. With the descriptors of front threads' apps, an acceptor app listens
   * instead, and hands each connection round robin to this app and theirs (uWS's own way to share
   * a listen socket between threads).
   */
  listen(host: string, port: number, frontApps: number[] = []): Promise<number> {
    let listener = this.app;
    if (frontApps.length > 0) {
      this.acceptor = listener = uWS.App();
      this.acceptor.addChildAppDescriptor(this.app.getDescriptor());
      for (const descriptor of frontApps) this.acceptor.addChildAppDescriptor(descriptor);
    }
    return new Promise((resolve, reject) => {
      // exclusive: uSockets would otherwise set SO_REUSEPORT, and a second server started on the
      // same port would silently take half of its connections
      listener.listen(host, port, LISTEN_EXCLUSIVE_PORT, (socket) => {
        if (!socket) return reject(new Error(`cannot listen on ${host}:${port} (in use?)`));
        this.listenSocket = socket;
        resolve(uWS.us_socket_local_port(socket as unknown as UWS.us_socket));
      });
    });
  }

  /** A front thread's app joins (or, gone, leaves) the ones connections are handed to. */
  addFrontApp(descriptor: number): void {
    this.acceptor?.addChildAppDescriptor(descriptor);
  }

  removeFrontApp(descriptor: number): void {
    this.acceptor?.removeChildAppDescriptor(descriptor);
  }

  /**
   * Stops accepting connections, then answers what keeps arriving on open ones (telling those
   * clients to close) until nothing has been in flight for a moment, or the time is up.
   */
  async drain(timeoutMs = 10_000, quietMs = 200): Promise<void> {
    if (this.listenSocket) uWS.us_listen_socket_close(this.listenSocket);
    this.listenSocket = null;
    this.draining = true;
    const deadline = Date.now() + timeoutMs;
    let quietSince = Date.now();
    while (Date.now() < deadline) {
      if (this.inFlight > 0) quietSince = Date.now();
      else if (Date.now() - quietSince >= quietMs) return;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

/** The media type a route takes besides JSON. */
const OTHER_BODY_TYPE: Record<BodyTypes, string | null> = {
  json: null,
  "json-or-form": "application/x-www-form-urlencoded",
  "json-or-text": "text/plain",
  "json-or-csv": "text/csv",
};

/**
 * Why a request's framing is refused, or null. Conflicting Content-Length headers, a
 * Transfer-Encoding beside a Content-Length, or a coding other than plain "chunked" could be
 * read another way by a proxy in front (request smuggling); a JSON route refuses other media.
 */
function framingRefusal(
  raw: UWS.HttpRequest,
  contentLength: string,
  transferEncoding: string,
  bodyTypes: BodyTypes | null,
): { status: number; message: string } | null {
  const lengths = new Set<string>();
  let encodings = 0;
  raw.forEach((name, value) => {
    if (name === "content-length") lengths.add(value.trim());
    else if (name === "transfer-encoding") encodings++;
  });
  // getHeader() gives the first of repeated headers; forEach() sees each line
  if (lengths.size > 1) {
    return { status: 400, message: "conflicting Content-Length headers" };
  }
  if (transferEncoding !== "") {
    if (contentLength !== "") return { status: 400, message: "both Transfer-Encoding and Content-Length are given" };
    if (encodings > 1 || transferEncoding.trim().toLowerCase() !== "chunked") {
      return { status: 501, message: `Transfer-Encoding '${transferEncoding}' is not supported; send a Content-Length or 'chunked' alone` };
    }
  } else if (!/^\d{1,15}$/.test(contentLength)) {
    return { status: 400, message: "Content-Length must be a number of bytes" };
  }
  if (bodyTypes !== null && contentLength !== "0") {
    const type = raw.getHeader("content-type").split(";")[0].trim().toLowerCase();
    const other = OTHER_BODY_TYPE[bodyTypes];
    if (type !== "" && type !== "application/json" && !type.endsWith("+json") && type !== other) {
      return { status: 415, message: `Content-Type must be application/json${other ? ` or ${other}` : ""}, got '${type}'` };
    }
  }
  return null;
}

/** How many parameters (`:name` segments) a route pattern has. */
export function paramCountOf(pattern: string): number {
  return pattern.split("/").filter((part) => part.startsWith(":")).length;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Whether Accept-Encoding allows gzip (an explicit q=0 refuses it; "*" stands for it). */
export function acceptsGzip(header: string): boolean {
  let star: boolean | null = null;
  for (const part of header.toLowerCase().split(",")) {
    const [coding, ...params] = part.trim().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const allowed = q === undefined || Number(q.slice(2)) > 0;
    if (coding.trim() === "gzip") return allowed;
    if (coding.trim() === "*") star = allowed;
  }
  return star ?? false;
}
