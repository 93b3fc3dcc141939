// Command line and environment: every flag has a LEIDEX_* variable; the flag wins.

import type { KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { TrustedProxies } from "../http/trusted-proxies.js";
import { publicKeyFrom } from "../license/license-document.js";
import type { UpstreamLimits } from "../golden-copy/upstream-limits.js";

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  source: string | null;
  /** PostgreSQL connection string of the state nodes share (--database); null = state.db only */
  database: string | null;
  /** with --database: how long a node lets PostgreSQL keep it waiting before a write answers 503 */
  databaseLimits: { lockTimeoutMs: number; statementTimeoutMs: number; poolWaitMs: number };
  /** slices of the index, fixed (`--shards`); null = sized to the data (engine/slice-count.ts) */
  shards: number | null;
  /** shard worker threads (`--workers`); null = one per core */
  workers: number | null;
  /** threads that serve HTTP (`--front-threads`), the main one included; null = one per core */
  frontThreads: number | null;
  /** postings of work a front thread takes on for one search round itself (`--front-search-budget`); 0 = none */
  frontSearchBudget: number;
  rateLimit: number;
  rateWindowSeconds: number;
  cacheMegabytes: number;
  gleifApi: string;
  /** GLEIF's mapping API (ISIN and BIC files) */
  gleifMappingApi: string;
  /** with a given --source: the Level 2 files (paths or URLs); null = that part empty */
  level2: { rr: string | null; repex: string | null; isin: string | null; bic: string | null };
  /** UTC minutes after midnight of the daily reload */
  reloadAtMinutes: number;
  /** hours between GLEIF delta checks; 0: none */
  deltaHours: number;
  reloadNow: boolean;
  retrySeconds: number;
  /** days the change feed keeps a change (--changes-retention-days) */
  changesRetentionDays: number;
  /** deadlines of GLEIF's APIs and downloads, and the free disk a download or an upload must leave */
  upstream: UpstreamLimits;
  /** web origins allowed to call /mcp besides loopback pages; "*" = any */
  mcpOrigins: string[];
  /** threads that run the MCP SDK (src/mcp/mcp-threads.ts) */
  mcpThreads: number;
  /** the bootstrap API key; null = generated once and kept in the data dir */
  apiKey: string | null;
  /** area C: the operator key; null = generated once and kept in the data dir */
  operatorKey: string | null;
  dispatchers: number;
  webhookAllowHosts: string[];
  webhookCaFile: string | null;
  webhookTimeoutSeconds: number;
  /** the ELF code list file (--legal-forms); null: the bundled one */
  legalForms: string | null;
  /** null: POST /license/activate refuses every licence */
  licensePublicKey: KeyObject | null;
  /** reverse proxies whose X-Forwarded-For names the client (addresses or CIDR ranges) */
  trustProxy: string[];
}

interface FlagSpec {
  env: string;
  help: string;
  fallback: () => string | null;
  /** true/false/1/0/yes/no, or the bare flag for true */
  boolean?: true;
}

const FLAGS: Record<string, FlagSpec> = {
  port: { env: "LEIDEX_PORT", help: "port to listen on", fallback: () => "8080" },
  host: { env: "LEIDEX_HOST", help: "address to listen on", fallback: () => "0.0.0.0" },
  "data-dir": { env: "LEIDEX_DATA_DIR", help: "where downloads and state are kept", fallback: () => "./data" },
  source: {
    env: "LEIDEX_SOURCE",
    help: "golden copy to load: a CSV or zip path, an http(s) URL, or `sample` for the bundled real sample (default: the latest GLEIF publication)",
    fallback: () => null,
  },
  "gleif-api": { env: "LEIDEX_GLEIF_API", help: "GLEIF golden copy API base", fallback: () => "https://goldencopy.gleif.org/api/v2" },
  "gleif-mapping-api": {
    env: "LEIDEX_GLEIF_MAPPING_API",
    help: "GLEIF mapping API base (the ISIN and BIC to LEI files)",
    fallback: () => "https://mapping.gleif.org/api/v2",
  },
  "rr-source": {
    env: "LEIDEX_RR_SOURCE",
    help: "with a given --source: the Level 2 relationship records (RR CSV or zip path, or URL); default none",
    fallback: () => null,
  },
  "repex-source": {
    env: "LEIDEX_REPEX_SOURCE",
    help: "with a given --source: the Level 2 reporting exceptions (REPEX CSV or zip path, or URL); default none",
    fallback: () => null,
  },
  "isin-source": {
    env: "LEIDEX_ISIN_SOURCE",
    help: "with a given --source: the ISIN to LEI mapping file (CSV or zip path, or URL); default none",
    fallback: () => null,
  },
  "bic-source": {
    env: "LEIDEX_BIC_SOURCE",
    help: "with a given --source: the BIC to LEI mapping file (CSV or zip path, or URL); default none",
    fallback: () => null,
  },
  "reload-at": {
    env: "LEIDEX_RELOAD_AT",
    help: "daily full reload time, HH:MM UTC (GLEIF publishes at 00:00, 08:00 and 16:00)",
    fallback: () => "08:45",
  },
  "delta-hours": {
    env: "LEIDEX_DELTA_HOURS",
    help: "with GLEIF as the source: hours between checks for a new publication between the daily full reloads, each applied from GLEIF's smallest delta that covers it; 0: daily full reloads only",
    fallback: () => "8",
  },
  "reload-now": {
    env: "LEIDEX_RELOAD_NOW",
    help: "load the source again at start-up, even when its publication is on disk (true/false/1/0/yes/no; bare = true)",
    fallback: () => "false",
    boolean: true,
  },
  "api-key": {
    env: "LEIDEX_API_KEY",
    help: "bootstrap API key of the keyed engine API (default: generated on first start, kept in <data-dir>/bootstrap-key)",
    fallback: () => null,
  },
  "retry-seconds": {
    env: "LEIDEX_RETRY_SECONDS",
    help: "first wait before retrying a failed load; doubles up to an hour",
    fallback: () => "60",
  },
  "changes-retention-days": {
    env: "LEIDEX_CHANGES_RETENTION_DAYS",
    help: "days the change feed keeps a change (GET /v1/changes); older ones are pruned at start and daily",
    fallback: () => "400",
  },
  "upstream-timeout": {
    env: "LEIDEX_UPSTREAM_TIMEOUT",
    help: "seconds a call to GLEIF's APIs may take in all; a download gets this plus its size at --download-min-rate",
    fallback: () => "30",
  },
  "download-min-rate": {
    env: "LEIDEX_DOWNLOAD_MIN_RATE",
    help: "slowest average a download may keep, in KB/s (1 KB = 1024 bytes); slower ones fail and are retried",
    fallback: () => "128",
  },
  "disk-floor-mb": {
    env: "LEIDEX_DISK_FLOOR_MB",
    help: "MiB of free disk on the data dir's file system a download or an import must leave (for state.db); 0 disables",
    fallback: () => "512",
  },
  database: {
    env: "LEIDEX_DATABASE",
    help: "postgres://user:password@host:port/db: keep the state nodes share in PostgreSQL (so far API keys, search settings and the licence; default: all in <data-dir>/state.db)",
    fallback: () => null,
  },
  "database-lock-timeout": {
    env: "LEIDEX_DATABASE_LOCK_TIMEOUT",
    help: "with --database: seconds a statement waits for a lock (PostgreSQL's lock_timeout) before the write answers 503",
    fallback: () => "3",
  },
  "database-statement-timeout": {
    env: "LEIDEX_DATABASE_STATEMENT_TIMEOUT",
    help: "with --database: seconds a statement may run, lock waits included (statement_timeout), before the write answers 503",
    fallback: () => "10",
  },
  "database-pool-wait": {
    env: "LEIDEX_DATABASE_POOL_WAIT",
    help: "with --database: seconds a request waits for a free connection of the node's pool before it answers 503",
    fallback: () => "5",
  },
  shards: {
    env: "LEIDEX_SHARDS",
    help: "slices of the index, fixed (default: sized to the data: one slice up to 8,000,000 records)",
    fallback: () => null,
  },
  workers: {
    env: "LEIDEX_WORKERS",
    help: "shard worker threads; each serves every slice, from one copy of the index in memory (default: one per core)",
    fallback: () => null,
  },
  "front-threads": {
    env: "LEIDEX_FRONT_THREADS",
    help: "threads that serve HTTP, the main one included: each answers lookups and searches itself (default: one per core)",
    fallback: () => null,
  },
  "front-search-budget": {
    env: "LEIDEX_FRONT_SEARCH_BUDGET",
    help:
      "a search round the engine estimates at no more postings than this is answered by the front thread that received it, " +
      "with no hop to a shard worker; costlier ones go to the workers. 0 sends every search to the workers",
    fallback: () => "2000000",
  },
  "rate-limit": { env: "LEIDEX_RATE_LIMIT", help: "public API requests per IP per window; 0 disables", fallback: () => "6000" },
  "rate-window": { env: "LEIDEX_RATE_WINDOW", help: "rate-limit window in seconds", fallback: () => "60" },
  "cache-mb": { env: "LEIDEX_CACHE_MB", help: "memory for cached search answers in MB; 0 disables", fallback: () => "64" },
  "operator-key": {
    env: "LEIDEX_OPERATOR_KEY",
    help: "operator key of the mail event webhooks (default: generated on first start, kept in <data-dir>/operator-key)",
    fallback: () => null,
  },
  dispatchers: { env: "LEIDEX_DISPATCHERS", help: "webhook dispatcher threads (1 or 2)", fallback: () => "1" },
  "webhook-allow-hosts": {
    env: "LEIDEX_WEBHOOK_ALLOW_HOSTS",
    help: "comma-separated receiver hosts (names or IPs) exempt from the private-address block",
    fallback: () => "",
  },
  "webhook-ca-file": {
    env: "LEIDEX_WEBHOOK_CA_FILE",
    help: "PEM file of extra CA certificates trusted for webhook receivers",
    fallback: () => null,
  },
  "webhook-timeout": { env: "LEIDEX_WEBHOOK_TIMEOUT", help: "seconds per webhook attempt", fallback: () => "10" },
  "trust-proxy": {
    env: "LEIDEX_TRUST_PROXY",
    help: "comma-separated proxy addresses or CIDR ranges whose X-Forwarded-For names the client",
    fallback: () => "",
  },
  "legal-forms": {
    env: "LEIDEX_LEGAL_FORMS",
    help: "GLEIF's ISO 20275 ELF code list (CSV, GLEIF's layout) to name legal forms by, newer than the bundled v1.6 (default: data/elf/)",
    fallback: () => null,
  },
  "license-public-key": {
    env: "LEIDEX_LICENSE_PUBLIC_KEY",
    help: "Ed25519 public key that signs licences for POST /license/activate: a PEM file, or the key's 32 bytes in base64 (default: no licences)",
    fallback: () => null,
  },
  "mcp-origins": {
    env: "LEIDEX_MCP_ORIGINS",
    help: "comma-separated web origins allowed to call /mcp besides loopback pages (* = any)",
    fallback: () => "",
  },
  "mcp-threads": { env: "LEIDEX_MCP_THREADS", help: "threads that run the MCP SDK for /mcp (1 to 4)", fallback: () => "1" },
};

export class ConfigError extends Error {}

/** Every flag (without its dashes) and its environment variable: what docs/configuration.md must list. */
export function flagNames(): { flag: string; env: string }[] {
  return Object.entries(FLAGS).map(([flag, spec]) => ({ flag, env: spec.env }));
}

export function usage(): string {
  const lines = ["Usage: npm start -- [flags]", "", "Flags (each also settable by environment variable):"];
  for (const [name, spec] of Object.entries(FLAGS)) {
    const def = spec.fallback();
    lines.push(`  --${name.padEnd(14)} ${spec.env.padEnd(20)} ${spec.help}${def !== null ? ` (default ${def})` : ""}`);
  }
  lines.push("  --help                            this text");
  return lines.join("\n");
}

export function parseConfig(argv: string[], env: NodeJS.ProcessEnv): Config | "help" {
  let parsed;
  try {
    parsed = parseArgs({
      args: withBooleanValues(argv),
      options: {
        ...Object.fromEntries(Object.keys(FLAGS).map((k) => [k, { type: "string" as const }])),
        help: { type: "boolean" as const },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  if (parsed.values.help) return "help";
  const get = (name: string): string | null => {
    const v = (parsed.values as Record<string, string | boolean | undefined>)[name];
    if (typeof v === "string") return v;
    return env[FLAGS[name].env] ?? FLAGS[name].fallback();
  };
  const int = (name: string, min: number, max: number): number => {
    const raw = get(name)!;
    const n = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || n < min || n > max)
      throw new ConfigError(`--${name} must be an integer from ${min} to ${max}, got "${raw}"`);
    return n;
  };
  return {
    port: int("port", 0, 65535),
    host: get("host")!,
    dataDir: get("data-dir")!,
    source: get("source"),
    database: databaseUrl(get("database")),
    databaseLimits: databaseLimits(
      int("database-lock-timeout", 1, 3_600),
      int("database-statement-timeout", 1, 3_600),
      int("database-pool-wait", 1, 3_600),
    ),
    shards: get("shards") === null ? null : int("shards", 1, 256),
    workers: get("workers") === null ? null : int("workers", 1, 256),
    frontThreads: get("front-threads") === null ? null : int("front-threads", 1, 64),
    frontSearchBudget: int("front-search-budget", 0, 1_000_000_000),
    rateLimit: int("rate-limit", 0, 1_000_000_000),
    rateWindowSeconds: int("rate-window", 1, 86_400),
    cacheMegabytes: int("cache-mb", 0, 65_536),
    gleifApi: httpUrl("gleif-api", get("gleif-api")!),
    gleifMappingApi: httpUrl("gleif-mapping-api", get("gleif-mapping-api")!),
    level2: { rr: get("rr-source"), repex: get("repex-source"), isin: get("isin-source"), bic: get("bic-source") },
    reloadAtMinutes: clockMinutes(get("reload-at")!),
    deltaHours: int("delta-hours", 0, 23),
    reloadNow: bool("reload-now", get("reload-now")!),
    retrySeconds: int("retry-seconds", 1, 86_400),
    changesRetentionDays: int("changes-retention-days", 1, 36_500),
    upstream: {
      apiSeconds: int("upstream-timeout", 1, 3600),
      minBytesPerSecond: int("download-min-rate", 1, 10_000_000) * 1024,
      diskFloorBytes: int("disk-floor-mb", 0, 10_000_000) * 1024 * 1024,
    },
    apiKey: apiKey(get("api-key"), "api-key"),
    mcpOrigins: origins("mcp-origins", get("mcp-origins")!),
    mcpThreads: int("mcp-threads", 1, 4),
    operatorKey: apiKey(get("operator-key"), "operator-key"),
    dispatchers: int("dispatchers", 1, 2),
    webhookAllowHosts: get("webhook-allow-hosts")!
      .split(",")
      .map((h) => h.trim())
      .filter((h) => h !== ""),
    webhookCaFile: get("webhook-ca-file"),
    webhookTimeoutSeconds: int("webhook-timeout", 1, 120),
    trustProxy: proxies("trust-proxy", get("trust-proxy")!),
    legalForms: get("legal-forms") || null,
    licensePublicKey: licenseKey("license-public-key", get("license-public-key")),
  };
}

function databaseUrl(raw: string | null): string | null {
  if (raw === null || raw === "") return null;
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // not a URL: refused below
  }
  if (!url || (url.protocol !== "postgres:" && url.protocol !== "postgresql:") || url.hostname === "")
    throw new ConfigError(`--database must be a postgres://user:password@host:port/database URL, got "${raw.replace(/:[^:@/]*@/, ":…@")}"`);
  return raw;
}

/** A statement_timeout below the lock_timeout would cut every lock wait short first: refused. */
function databaseLimits(lockSeconds: number, statementSeconds: number, poolWaitSeconds: number): Config["databaseLimits"] {
  if (statementSeconds < lockSeconds)
    throw new ConfigError(
      `--database-statement-timeout (${statementSeconds}) must be at least --database-lock-timeout (${lockSeconds}): it counts lock waits too`,
    );
  return { lockTimeoutMs: lockSeconds * 1000, statementTimeoutMs: statementSeconds * 1000, poolWaitMs: poolWaitSeconds * 1000 };
}

function licenseKey(name: string, raw: string | null): KeyObject | null {
  if (raw === null || raw === "") return null;
  const inline = /^[A-Za-z0-9+/]{43}=$/.test(raw.trim());
  let text: string;
  try {
    text = inline ? raw : readFileSync(raw, "utf8");
  } catch (err) {
    throw new ConfigError(`--${name}: cannot read ${raw} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  try {
    return publicKeyFrom(text);
  } catch (err) {
    throw new ConfigError(`--${name} must be an Ed25519 public key (a PEM file, or its 32 bytes in base64): ${(err as Error).message}`);
  }
}

function httpUrl(name: string, raw: string): string {
  if (!/^https?:\/\/[^/\s]+/i.test(raw)) throw new ConfigError(`--${name} must be an http(s) URL, got "${raw}"`);
  return raw.replace(/\/+$/, "");
}

function origins(name: string, raw: string): string[] {
  const list = raw
    .split(",")
    .map((o) => o.trim())
    .filter((o) => o !== "");
  for (const o of list) {
    if (o !== "*" && !/^https?:\/\/[^/\s]+$/i.test(o))
      throw new ConfigError(`--${name} takes origins such as https://app.example.com or *, got "${o}"`);
  }
  return list;
}

function proxies(name: string, raw: string): string[] {
  const list = raw
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
  try {
    new TrustedProxies(list);
  } catch (err) {
    throw new ConfigError(`--${name}: ${(err as Error).message}`);
  }
  return list;
}

function clockMinutes(raw: string): number {
  const m = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(raw.trim());
  if (!m) throw new ConfigError(`--reload-at must be a UTC time HH:MM, got "${raw}"`);
  return Number(m[1]) * 60 + Number(m[2]);
}

const TRUE = /^(true|1|yes)$/i,
  FALSE = /^(false|0|no)$/i;

function bool(name: string, raw: string): boolean {
  if (TRUE.test(raw.trim())) return true;
  if (FALSE.test(raw.trim())) return false;
  throw new ConfigError(`--${name} takes true, false, 1, 0, yes or no (or the bare flag for true), got "${raw}"`);
}

/**
 * parseArgs knows flags that take a value and flags that take none; a boolean flag here takes
 * either: `--reload-now`, `--reload-now=no` and `--reload-now true` all work. The bare flag
 * becomes `--flag=true`, and a following word is its value when it is not another flag; a value
 * that is not a boolean is refused later by bool(), naming it.
 */
function withBooleanValues(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const name = arg.startsWith("--") && !arg.includes("=") ? arg.slice(2) : null;
    if (name === null || FLAGS[name]?.boolean !== true) {
      out.push(arg);
      continue;
    }
    const next = argv[i + 1];
    if (next !== undefined && !next.startsWith("--")) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(`${arg}=true`);
  }
  return out;
}

function apiKey(raw: string | null, name: string): string | null {
  if (raw === null) return null;
  if (!/^[\x21-\x7e]{8,512}$/.test(raw)) throw new ConfigError(`--${name} must be 8 to 512 printable characters without spaces`);
  return raw;
}
