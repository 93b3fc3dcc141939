// Child processes and temporary directories for the bench: start a server and wait
// for its "listening on http://HOST:PORT" line, read its memory from /proc, and make
// sure every child and temp dir is gone when the bench ends, whichever way it ends.

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createWriteStream, readFileSync, rmSync } from "node:fs";
import net from "node:net";

type Cleanup = () => void;
const cleanups = new Map<number, Cleanup>();
let nextCleanup = 1;
let hooked = false;

/** Registers a synchronous cleanup to run at exit (normal, signal or crash); returns its remover. */
export function onCleanup(fn: Cleanup): () => void {
  hookExit();
  const id = nextCleanup++;
  cleanups.set(id, fn);
  return () => cleanups.delete(id);
}

/** Runs a bench CLI's main: exit 0 when it resolves, 1 with the error when it rejects; cleanups run either way. */
export function runCli(name: string, main: () => Promise<void>): void {
  main()
    .then(() => {
      runCleanups();
      process.exit(0);
    })
    .catch((err: unknown) => {
      process.stderr.write(`${name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      runCleanups();
      process.exit(1);
    });
}

/** Whatever hangs, the bench ends: after `ms`, cleanups run and the process exits 2. */
export function startWatchdog(name: string, ms: number): void {
  setTimeout(() => {
    process.stderr.write(`${name}: watchdog expired, stopping\n`);
    runCleanups();
    process.exit(2);
  }, ms).unref();
}

export function runCleanups(): void {
  for (const [id, fn] of [...cleanups].reverse()) {
    cleanups.delete(id);
    try {
      fn();
    } catch {
      // Best effort: one failed cleanup must not stop the others.
    }
  }
}

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on("exit", runCleanups);
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(sig, () => {
      runCleanups();
      process.exit(128 + (sig === "SIGINT" ? 2 : sig === "SIGTERM" ? 15 : 1));
    });
  }
}

export function removeDirLater(dir: string): () => void {
  const remove = onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return () => {
    remove();
    rmSync(dir, { recursive: true, force: true });
  };
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === "object" && addr !== null ? resolve(addr.port) : reject(new Error("no port"))));
    });
  });
}

export interface Memory {
  readonly rssBytes: number;
  /** Peak RSS over the process's whole life (VmHWM). */
  readonly hwmBytes: number;
}

export function readMemory(pid: number): Memory | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (key: string): number => {
      const m = new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status);
      return m === null ? 0 : Number(m[1]) * 1024;
    };
    return { rssBytes: kb("VmRSS"), hwmBytes: kb("VmHWM") };
  } catch {
    return null;
  }
}

/** utime + stime of a process (all its threads), in seconds. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15, in clock ticks (USER_HZ, 100 on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Busy time of all CPUs (everything but idle and iowait), in seconds, from /proc/stat. */
export function machineBusySeconds(): number {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n")[0]!;
    const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = ticks.reduce((a, b) => a + b, 0);
    return (total - ticks[3]! - ticks[4]!) / 100;
  } catch {
    return 0;
  }
}

/** Samples a process's RSS every `everyMs` and keeps the peak. */
export class RssSampler {
  private peak = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pid: number,
    everyMs = 200,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
  }

  private sample(): void {
    const m = readMemory(this.pid);
    if (m !== null && m.rssBytes > this.peak) this.peak = m.rssBytes;
  }

  stop(): number {
    clearInterval(this.timer);
    this.sample();
    return this.peak;
  }
}

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly host: string;
  readonly port: number;
  readonly readySeconds: number;
  /** Last lines the process printed (stdout and stderr), for error reports. */
  tail(): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly readyTimeoutMs: number;
  readonly logFile?: string;
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
}

const READY = /listening on http:\/\/([^\s:/]+|\[[^\]]+\]):(\d+)/;

/**
 * A measured server's daily reload, 12 hours from now unless the caller sets one: the default
 * (08:45 UTC) once fell inside a run and loaded a second collection under its loads.
 */
function awayFromReload(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (env.LEIDEX_RELOAD_AT !== undefined) return env;
  const at = new Date(Date.now() + 12 * 3600_000);
  const hhmm = (n: number): string => String(n).padStart(2, "0");
  return { ...env, LEIDEX_RELOAD_AT: `${hhmm(at.getUTCHours())}:${hhmm(at.getUTCMinutes())}` };
}

/** Spawns a server and resolves once it prints `listening on http://HOST:PORT`. */
export function startServer(opts: StartOptions): Promise<ServerProcess> {
  const started = performance.now();
  const env = awayFromReload(opts.env ?? process.env);
  const child = spawn(opts.command, [...opts.args], { cwd: opts.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  const log = opts.logFile !== undefined ? createWriteStream(opts.logFile) : null;
  const lines: string[] = [];
  const keep = (text: string): void => {
    for (const l of text.split("\n")) if (l.trim() !== "") lines.push(l);
    if (lines.length > 60) lines.splice(0, lines.length - 60);
  };
  const kill = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  const unregister = onCleanup(kill);
  let exited = false;
  const exitPromise = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      unregister();
      log?.end();
      resolve();
    }),
  );

  const stop = async (): Promise<void> => {
    if (exited) return;
    child.kill("SIGTERM");
    const timer = setTimeout(kill, 10_000);
    await exitPromise;
    clearTimeout(timer);
  };

  return new Promise<ServerProcess>((resolve, reject) => {
    let ready = false;
    let stdoutBuf = "";
    const timer = setTimeout(() => {
      if (ready) return;
      kill();
      reject(
        new Error(
          `${opts.command} did not print "listening on http://HOST:PORT" within ${opts.readyTimeoutMs / 1000} s; last output:\n${lines.slice(-20).join("\n")}`,
        ),
      );
    }, opts.readyTimeoutMs);
    child.stdout!.on("data", (d: Buffer) => {
      const text = d.toString("utf8");
      log?.write(text);
      keep(text);
      if (ready) return;
      stdoutBuf += text;
      const m = READY.exec(stdoutBuf);
      if (m !== null) {
        ready = true;
        clearTimeout(timer);
        resolve({
          child,
          pid: child.pid!,
          host: m[1]!.replace(/^\[|\]$/g, ""),
          port: Number(m[2]),
          readySeconds: (performance.now() - started) / 1000,
          tail: () => lines.slice(-20).join("\n"),
          stop,
        });
      } else if (stdoutBuf.length > 1 << 20) stdoutBuf = stdoutBuf.slice(-4096);
    });
    child.stderr!.on("data", (d: Buffer) => {
      const text = d.toString("utf8");
      log?.write(text);
      keep(text);
    });
    child.once("error", (err) => {
      clearTimeout(timer);
      if (!ready) reject(err);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      if (!ready)
        reject(new Error(`${opts.command} exited (${code ?? signal}) before it was ready; last output:\n${lines.slice(-20).join("\n")}`));
    });
  });
}

/** Runs a command to completion, throwing with its output if it fails. */
export function runSync(command: string, args: readonly string[], opts: { cwd?: string; timeoutMs?: number } = {}): string {
  const r = spawnSync(command, [...args], { cwd: opts.cwd, encoding: "utf8", timeout: opts.timeoutMs ?? 120_000 });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}
