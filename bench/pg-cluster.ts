// A throw-away PostgreSQL 15 cluster for the baselines (postgres.ts, registry-postgres.ts):
// initdb into a temp dir (as the postgres user when we are root), a server on 127.0.0.1 with
// its unix socket in the temp dir, settings for a read benchmark rather than durability, and
// removal of everything at stop, at exit, on error or Ctrl-C. Also the COPY text file writer
// and a client for it.

import { mkdtempSync, chownSync, existsSync, createWriteStream, rmSync, chmodSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { once } from "node:events";
import pg from "pg";
import { freePort, onCleanup, runSync } from "./proc.js";

const PG_BIN = "/usr/lib/postgresql/15/bin";

export interface Cluster {
  readonly dir: string;
  readonly port: number;
  stop(): void;
}

function asPostgres(cmd: string, args: readonly string[]): [string, string[]] {
  // initdb and postgres refuse to run as root.
  return process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", cmd, ...args]] : [cmd, [...args]];
}

function pgIds(): { uid: number; gid: number } {
  const uid = Number(runSync("id", ["-u", "postgres"]).trim());
  const gid = Number(runSync("id", ["-g", "postgres"]).trim());
  return { uid, gid };
}

/** `durable`: PostgreSQL's own defaults for fsync and commits, for a bench of writes beside SQLite's full sync. */
export async function startCluster(connections: number, log: (l: string) => void, opts: { durable?: boolean } = {}): Promise<Cluster> {
  if (!existsSync(path.join(PG_BIN, "initdb"))) throw new Error(`PostgreSQL 15 binaries not found in ${PG_BIN}`);
  const dir = mkdtempSync(path.join(os.tmpdir(), "leidex-pg-"));
  let stopped = false;
  const data = path.join(dir, "data");
  const sock = path.join(dir, "sock");
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    try {
      const [c, a] = asPostgres(path.join(PG_BIN, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "-t", "30", "stop"]);
      runSync(c, a, { timeoutMs: 40_000 });
    } catch {
      // Not started, or already gone.
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const unregister = onCleanup(stop);
  try {
    if (process.getuid?.() === 0) {
      const { uid, gid } = pgIds();
      chownSync(dir, uid, gid);
    }
    chmodSync(dir, 0o755);
    const mk = asPostgres("mkdir", ["-p", sock]);
    runSync(mk[0], mk[1]);
    const init = asPostgres(path.join(PG_BIN, "initdb"), [
      "-D",
      data,
      "-U",
      "postgres",
      "-A",
      "trust",
      "-E",
      "UTF8",
      "--locale=C.UTF-8",
      "--no-instructions",
    ]);
    runSync(init[0], init[1], { timeoutMs: 120_000 });
    const port = await freePort();
    const settings = [
      "listen_addresses=127.0.0.1",
      `port=${port}`,
      `unix_socket_directories=${sock}`,
      `max_connections=${connections + 10}`,
      "shared_buffers=1GB",
      "work_mem=32MB",
      "maintenance_work_mem=1GB",
      "effective_cache_size=8GB",
      // Durability is irrelevant for a throw-away read benchmark; it only slows the load.
      ...(opts.durable ? [] : ["fsync=off", "synchronous_commit=off", "full_page_writes=off"]),
      // JIT compilation costs more than it saves on millisecond queries.
      "jit=off",
    ];
    const start = asPostgres(path.join(PG_BIN, "pg_ctl"), [
      "-D",
      data,
      "-l",
      path.join(dir, "server.log"),
      "-w",
      "-t",
      "60",
      "-o",
      settings.map((s) => `-c ${s}`).join(" "),
      "start",
    ]);
    runSync(start[0], start[1], { timeoutMs: 90_000 });
    log(`postgres: cluster in ${dir}, port ${port}`);
    return {
      dir,
      port,
      stop: () => {
        unregister();
        stop();
      },
    };
  } catch (err) {
    unregister();
    stop();
    throw err;
  }
}

/** COPY text format: backslash, tab and line breaks escaped. */
function copyField(v: string): string {
  return v === "" ? "\\N" : v.replace(/[\\\t\n\r]/g, (c) => (c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r"));
}

/** Writes rows as a COPY text file (empty strings become NULL); returns the number of rows. */
export async function writeCopyFile(file: string, rows: Iterable<readonly string[]> | AsyncIterable<readonly string[]>): Promise<number> {
  const out = createWriteStream(file, { highWaterMark: 1 << 20 });
  let chunk = "";
  let n = 0;
  for await (const row of rows) {
    chunk += row.map(copyField).join("\t") + "\n";
    n++;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, "drain");
      chunk = "";
    }
  }
  out.end(chunk);
  await once(out, "finish");
  return n;
}

export function pgClient(port: number): pg.Client {
  return new pg.Client({ host: "127.0.0.1", port, user: "postgres", database: "postgres" });
}
