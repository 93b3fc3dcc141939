// The load generator's child process: C keep-alive HTTP/1.1 connections on raw
// sockets, each sending its next request as soon as the previous response is
// complete (closed loop; with `pipeline` N, N requests written together, the next N once all are
// answered), or, with a rate, as soon as a request falls due (open
// loop: latency then counts from when the request was due). Responses are parsed as they are
// read, without a buffer or a string per response (response-parser.ts), so the client's own
// garbage collections do not pause it and show up as the server's latency.
// It runs alone in its process so that it never competes with a server for an
// event loop; it exits by itself at the latest a few seconds after its window.

import net from "node:net";
import { Histogram } from "./histogram.js";
import type { ChildMessage, LoadConfig, LoadResult, StopMessage } from "./loadgen-protocol.js";
import { Rng } from "./prng.js";
import { ResponseParser } from "./response-parser.js";

const READ_BUFFER_BYTES = 64 * 1024;
/**
 * Every connection reads into this one buffer (net's `onread`): its callback parses the bytes
 * before returning, so nothing read is ever kept, and no buffer is allocated per read.
 */
const readBuffer = Buffer.allocUnsafeSlow(READ_BUFFER_BYTES);

interface Stats {
  hist: Histogram;
  statuses: Map<number, number>;
  errorKinds: Map<string, number>;
  completed: number;
  bytes: number;
}

class Connection {
  private socket: net.Socket | null = null;
  private readonly parser = new ResponseParser((status) => this.complete(status));
  /** when each request in flight was sent (or fell due), oldest first: answers come in that order */
  private readonly sentAt: number[] = [];
  private answeredInFlight = 0;
  private stopped = false;

  constructor(private readonly load: LoadGenerator) {}

  start(): void {
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.socket?.destroy();
    this.socket = null;
  }

  /** A request outstanding for too long: count it and start over on a new connection. */
  checkTimeout(now: number, limitMs: number): void {
    if (this.busy && now - this.sentAt[this.answeredInFlight]! > limitMs) {
      this.load.error("timeout");
      this.reconnect();
    }
  }

  private connect(): void {
    if (this.stopped) return;
    this.parser.reset();
    const s = net.connect({
      host: this.load.cfg.host,
      port: this.load.cfg.port,
      onread: {
        buffer: readBuffer,
        callback: (n: number) => {
          if (this.socket === s) this.onBytes(n);
          return true;
        },
      },
    });
    s.setNoDelay(true);
    this.socket = s;
    s.on("connect", () => this.send());
    s.on("error", (err: NodeJS.ErrnoException) => {
      this.load.error(err.code === "ECONNREFUSED" ? "refused" : err.code === "ECONNRESET" ? "reset" : `socket:${err.code ?? "error"}`);
    });
    s.on("close", () => {
      if (this.socket !== s) return;
      this.socket = null;
      for (let i = this.answeredInFlight; i < this.sentAt.length; i++) this.load.error("closed");
      this.clearInFlight();
      // Back off a little so a dead server does not turn into a reconnect storm.
      if (!this.stopped) setTimeout(() => this.connect(), 20).unref();
    });
  }

  private reconnect(): void {
    const s = this.socket;
    this.socket = null;
    this.clearInFlight();
    s?.destroy();
    if (!this.stopped) this.connect();
  }

  /**
   * Sends the next request, or with `pipeline` up to that many, written together (one write):
   * the next go out once all of them are answered.
   */
  send(): void {
    if (this.stopped || !this.load.running || this.socket === null || this.busy) return;
    this.clearInFlight();
    const socket = this.socket;
    socket.cork();
    for (let i = 0; i < this.load.cfg.pipeline; i++) {
      const dueAt = this.load.takeDue(this);
      if (dueAt === null) break;
      this.sentAt.push(dueAt);
      socket.write(this.load.nextRequest());
    }
    socket.uncork();
  }

  private clearInFlight(): void {
    this.sentAt.length = 0;
    this.answeredInFlight = 0;
  }

  private onBytes(n: number): void {
    this.load.received(n);
    const outcome = this.parser.feed(readBuffer, 0, n);
    if (outcome === "close") this.reconnect();
    else if (outcome !== "more") this.fail(outcome);
  }

  /** Whether a request of this connection awaits its answer. */
  get busy(): boolean {
    return this.answeredInFlight < this.sentAt.length;
  }

  private complete(status: number): void {
    if (!this.busy) {
      this.fail("unasked-response");
      return;
    }
    this.load.done(status, (performance.now() - this.sentAt[this.answeredInFlight++]!) * 1000);
    if (this.busy) return;
    this.send();
    this.load.checkDrained();
  }

  private fail(kind: string): void {
    this.load.error(kind);
    this.reconnect();
  }
}

class LoadGenerator {
  running = true;
  recording = false;
  private readonly requests: Buffer[];
  private cursor = 0;
  /**
   * Open loop: when the requests not yet sent fell due, oldest first; and connections waiting for
   * one, longest waiting first. Taking the connection that waited longest keeps every connection
   * in use: at a low rate a connection left idle for the server's keep-alive timeout (uWS: 10 s)
   * is closed by the server, and a request written as it closes is cut ("reset", "closed").
   */
  private readonly due: number[] = [];
  private dueHead = 0;
  private readonly idle: Connection[] = [];
  private dueCount = 0;
  private openedAt = 0;
  private readonly rng: Rng;
  readonly stats: Stats = { hist: new Histogram(), statuses: new Map(), errorKinds: new Map(), completed: 0, bytes: 0 };

  /** requests handed to a connection, and answered (recorded or not) */
  private sent = 0;
  private answered = 0;
  /** resolves the measured window early: every request of `total` answered, or the parent's stop */
  endWindow: () => void = () => {};
  /** Open loop, stopped by the parent: no request falls due any more, and the window ends once those due are answered. */
  private draining = false;
  connections: readonly Connection[] = [];

  /** The parent's stop: a closed loop ends now; an open loop once every request already due is answered, so a stall is measured whole. */
  stop(): void {
    if (this.cfg.ratePerS === null) this.endWindow();
    else {
      this.draining = true;
      this.checkDrained();
    }
  }

  checkDrained(): void {
    if (this.draining && this.dueHead >= this.due.length && !this.connections.some((c) => c.busy)) this.endWindow();
  }

  constructor(readonly cfg: LoadConfig) {
    const head: Record<string, string> = {
      Host: `${cfg.host}:${cfg.port}`,
      "User-Agent": "leidex-bench",
      Accept: "application/json",
      ...cfg.headers,
    };
    const lines = Object.entries(head)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join("");
    this.requests = cfg.paths.map((p, i) => {
      const body = cfg.bodies?.[i];
      if (body === undefined) return Buffer.from(`GET ${p} HTTP/1.1\r\n${lines}\r\n`, "latin1");
      const bytes = Buffer.from(body, "utf8");
      const type = "Content-Type" in head ? "" : "Content-Type: application/json\r\n";
      return Buffer.concat([Buffer.from(`POST ${p} HTTP/1.1\r\n${lines}${type}Content-Length: ${bytes.length}\r\n\r\n`, "latin1"), bytes]);
    });
    this.rng = Rng.at(cfg.seed, 21, 0);
  }

  /** When the next request fell due (now, in a closed loop), or null: the connection waits. */
  takeDue(conn: Connection): number | null {
    if (this.cfg.total !== null && this.sent >= this.cfg.total) return null;
    this.sent++;
    if (this.cfg.ratePerS === null) return performance.now();
    if (this.dueHead < this.due.length) return this.due[this.dueHead++]!;
    this.sent--;
    if (!this.idle.includes(conn)) this.idle.push(conn);
    return null;
  }

  /** Open loop: queues the requests due by now and hands them to idle connections. */
  tick(): void {
    const rate = this.cfg.ratePerS;
    if (rate === null || !this.running) return;
    const now = performance.now();
    if (this.openedAt === 0) this.openedAt = now;
    if (this.draining) {
      while (this.dueHead < this.due.length && this.idle.length > 0) this.idle.shift()!.send();
      return;
    }
    // request k falls due at openedAt + k / rate, so by now requests 0 … floor(elapsed · rate) are due
    const target = Math.floor(((now - this.openedAt) / 1000) * rate) + 1;
    for (; this.dueCount < target; this.dueCount++) this.due.push(this.openedAt + (this.dueCount * 1000) / rate);
    if (this.dueHead > 4096) {
      this.due.splice(0, this.dueHead);
      this.dueHead = 0;
    }
    while (this.dueHead < this.due.length && this.idle.length > 0) this.idle.shift()!.send();
  }

  get backlog(): number {
    return this.due.length - this.dueHead;
  }

  nextRequest(): Buffer {
    if (this.cfg.order === "random") return this.requests[this.rng.int(this.requests.length)]!;
    const r = this.requests[this.cursor]!;
    this.cursor = this.cursor + 1 === this.requests.length ? 0 : this.cursor + 1;
    return r;
  }

  done(status: number, us: number): void {
    if (this.cfg.total !== null && ++this.answered >= this.cfg.total) this.endWindow();
    if (!this.recording) return;
    this.stats.completed++;
    this.stats.hist.record(us);
    this.stats.statuses.set(status, (this.stats.statuses.get(status) ?? 0) + 1);
  }

  received(bytes: number): void {
    if (this.recording) this.stats.bytes += bytes;
  }

  error(kind: string): void {
    if (!this.recording) return;
    this.stats.errorKinds.set(kind, (this.stats.errorKinds.get(kind) ?? 0) + 1);
  }
}

async function run(cfg: LoadConfig): Promise<LoadResult> {
  if (cfg.paths.length === 0) throw new Error("no request paths");
  for (const p of cfg.paths)
    if (!/^\/[\x21-\x7e]*$/.test(p)) throw new Error(`request target must be URL-encoded ASCII: ${p.slice(0, 80)}`);
  const gen = new LoadGenerator(cfg);
  // The set-up's garbage (the request list arrives as ~100,000 strings) is collected now, not by
  // a full collection that would pause the client during the measured window.
  (globalThis as { gc?: () => void }).gc?.();
  const conns = Array.from({ length: cfg.connections }, () => new Connection(gen));
  gen.connections = conns;
  const timer = setInterval(() => {
    const now = performance.now();
    for (const c of conns) c.checkTimeout(now, cfg.requestTimeoutMs);
  }, 250);
  const pacer = cfg.ratePerS === null ? null : setInterval(() => gen.tick(), 1);
  for (const c of conns) c.start();
  const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
  await sleep(cfg.warmupMs);
  gen.stats.hist.reset();
  gen.recording = true;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, cfg.durationMs);
    gen.endWindow = () => {
      clearTimeout(timer);
      resolve();
    };
    stopEarly = () => gen.stop();
  });
  gen.recording = false;
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  gen.running = false;
  const backlog = gen.backlog;
  clearInterval(timer);
  if (pacer !== null) clearInterval(pacer);
  for (const c of conns) c.stop();

  const statusCounts: Record<string, number> = {};
  let non2xx = 0;
  for (const [s, n] of [...gen.stats.statuses].sort((a, b) => a[0] - b[0])) {
    statusCounts[String(s)] = n;
    if (s < 200 || s >= 300) non2xx += n;
  }
  const errorKinds: Record<string, number> = {};
  let errors = 0;
  for (const [k, n] of gen.stats.errorKinds) {
    errorKinds[k] = n;
    errors += n;
  }
  return {
    durationS: elapsed,
    requests: gen.stats.completed,
    rps: gen.stats.completed / elapsed,
    latency: gen.stats.hist.summary(),
    statusCounts,
    non2xx,
    errors,
    errorKinds,
    bytesReceived: gen.stats.bytes,
    clientCpuPct: ((cpu.user + cpu.system) / 1e6 / elapsed) * 100,
    connections: cfg.connections,
    distinctPaths: new Set(cfg.paths).size,
    offeredRps: cfg.ratePerS,
    backlog,
  };
}

function reply(msg: ChildMessage): Promise<void> {
  return new Promise((resolve) => {
    if (process.send === undefined) {
      process.stdout.write(JSON.stringify(msg) + "\n");
      resolve();
    } else process.send(msg, () => resolve());
  });
}

/** The parent's stop (StopMessage) ends the window that is running. */
let stopEarly: () => void = () => {};

process.on("message", (msg: LoadConfig | StopMessage) => {
  if ("type" in msg) {
    stopEarly();
    return;
  }
  const cfg = msg;
  // Hard stop: whatever happens, this process is gone a little after its window.
  setTimeout(() => process.exit(3), cfg.warmupMs + cfg.durationMs + 15_000).unref();
  run(cfg)
    .then((result) => reply({ type: "result", result }))
    .catch((err: unknown) => reply({ type: "error", message: err instanceof Error ? err.message : String(err) }))
    .finally(() => process.exit(0));
});
