// Leidex entry point: configuration, the shard pool, the first load, then the HTTP front.

import { fileURLToPath } from "node:url";
import { Collection } from "./engine/collection.js";
import { ShardPool } from "./engine/pool.js";
import { ConfigError, parseConfig, usage, type Config } from "./config/cli.js";
import { registerFallback, registerHealthRoutes } from "./http/health.js";
import { Metrics } from "./http/metrics.js";
import { nativeUwsProblem } from "./http/native-check.js";
import { RateLimiter } from "./http/rate-limit.js";
import { HttpServer } from "./http/server.js";
import { loadInto } from "./lei/ingest.js";
import { registerLeiRoutes } from "./lei/routes.js";
import { LeiService } from "./lei/service.js";

const BUNDLED_SAMPLE = fileURLToPath(new URL("../../data/sample/real-sample.csv", import.meta.url));

function log(line: string): void {
  console.log(`${new Date().toISOString()} ${line}`);
}

async function main(): Promise<void> {
  let config: Config | "help";
  try {
    config = parseConfig(process.argv.slice(2), process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`${err.message}\n\n${usage()}`);
    process.exit(2);
  }
  if (config === "help") {
    console.log(usage());
    return;
  }

  const uwsProblem = nativeUwsProblem();
  if (uwsProblem) {
    console.error(`\n!!! WARNING: ${uwsProblem}\n!!! Serving with the slow pure-JS fallback. Expect a fraction of the normal throughput.\n`);
  }

  const pool = new ShardPool(config.shards);
  await pool.ready();
  const collection = new Collection(pool);
  const metrics = new Metrics();
  const server = new HttpServer(metrics, new RateLimiter(config.rateLimit, config.rateWindowSeconds));
  registerHealthRoutes(server, collection, metrics);
  registerLeiRoutes(server, new LeiService(collection, config.cacheMegabytes << 20));
  registerFallback(server);
  const port = await server.listen(config.host, config.port);

  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: draining requests in flight`);
    await server.drain();
    await pool.close();
    log("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));

  const source = config.source ?? BUNDLED_SAMPLE;
  const describe = config.source
    ? `GLEIF Level 1 golden copy (LEI-CDF 3.1 CSV) loaded from ${config.source}`
    : "GLEIF Level 1 golden copy: the bundled real sample of 6,147 records (data/sample/real-sample.csv), not the full registry";
  let loading: Promise<void> | null = null;
  const load = (): Promise<void> => {
    loading ??= loadInto(collection, pool.slices, { source, dataDir: config.dataDir, describe, log })
      .then((result) => log(`loaded ${result.records} records in ${result.ingestSeconds.toFixed(1)} s`))
      .finally(() => { loading = null; });
    return loading;
  };
  // A shard worker that dies takes its slice with it: until the data is loaded again, requests
  // that need that slice get 503, never a partial answer.
  pool.onSliceLost = (slice) => {
    log(`shard worker of slice ${slice} died; reloading ${source}`);
    void pool.ready().then(() => (loading ?? load())).catch((err: Error) => console.error(`reload failed: ${err.message}`));
  };
  log(`loading ${source} into ${config.shards} slice(s)`);
  try {
    await load();
  } catch (err) {
    console.error(`load of ${source} failed: ${(err as Error).message}`);
    await server.drain(1000);
    await pool.close();
    process.exit(1);
  }
  const shownHost = config.host === "0.0.0.0" ? "127.0.0.1" : config.host;
  console.log(`listening on http://${shownHost}:${port}`);
}

main().catch((err: Error) => {
  console.error(err.stack ?? err.message);
  process.exit(1);
});
