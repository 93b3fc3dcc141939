// Leidex entry point: configuration, the shard pool, the first load, then the HTTP front.

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Collection } from "./engine/collection.js";
import { pinMmapThreshold } from "./os/native-heap.js";
import { ShardPool } from "./engine/pool.js";
import { ConfigError, parseConfig, usage, type Config } from "./config/cli.js";
import { StartupError } from "./config/startup-error.js";
import { registerFallback, registerHealthRoutes } from "./http/health.js";
import { Metrics } from "./http/metrics.js";
import { RateLimiter } from "./http/rate-limit.js";
import { TrustedProxies } from "./http/trusted-proxies.js";
import { HttpServer } from "./http/server.js";
import { Reloader, sourceSetting } from "./golden-copy/reloader.js";
import { registerLeiRoutes } from "./lei/routes.js";
import { LeiService } from "./lei/service.js";
import { registerMcpRoutes } from "./mcp/routes.js";
import { KeyAuth } from "./keys/auth.js";
import { bootstrapKey } from "./keys/bootstrap.js";
import { registerCollectionRoutes } from "./engine-api/collections-routes.js";
import { KeyStore } from "./keys/key-store.js";
import { unsupportedPatternWarnings } from "./keys/model.js";
import { SearchSettings } from "./engine-api/search-settings.js";
import { registerKeyRoutes, startKeyHousekeeping } from "./keys/keys-routes.js";
import { openStateDb } from "./store/state-db.js";
import { startWebhookArea } from "./webhooks/area.js";

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

  if (!pinMmapThreshold()) log("no glibc malloc controls here: memory a load frees may stay with the process until a restart");
  const pool = new ShardPool(config.shards);
  await pool.ready();
  const collection = new Collection(pool);
  const metrics = new Metrics();
  const proxies = config.trustProxy.length > 0 ? new TrustedProxies(config.trustProxy) : null;
  const server = new HttpServer(metrics, new RateLimiter(config.rateLimit, config.rateWindowSeconds), proxies);
  registerHealthRoutes(server, collection, metrics);
  const leiService = new LeiService(collection, config.cacheMegabytes * 1024 * 1024);
  registerLeiRoutes(server, leiService);
  registerMcpRoutes(server, leiService, { allowedOrigins: config.mcpOrigins });
  const stateDb = openStateDb(config.dataDir);
  const keyStore = new KeyStore(stateDb);
  for (const line of unsupportedPatternWarnings(keyStore.list())) log(line);
  const bootstrap = bootstrapKey(config.apiKey, config.dataDir);
  log(bootstrap.banner);
  const nowSeconds = (): number => Math.floor(Date.now() / 1000);
  // a guard against guessing: 30 bad keys a minute per address, then 429, whichever key family
  const guessing = new RateLimiter(30, 60);
  const keyAuth = new KeyAuth(keyStore, bootstrap.value, guessing, nowSeconds);
  registerKeyRoutes(server, keyAuth, keyStore, nowSeconds);
  registerCollectionRoutes(server, { auth: keyAuth, settings: new SearchSettings(stateDb), service: leiService, collection, reload: () => reloader.reloadInBackground(false),
    importFile: (path, opts) => reloader.importFile(path, opts), uploadDir: join(config.dataDir, "downloads"), log,
  });
  startKeyHousekeeping(keyStore, nowSeconds, log);
  const dispatch = startWebhookArea(server, stateDb, {
    dataDir: config.dataDir, operatorKey: config.operatorKey, dispatchers: config.dispatchers, allowHosts: config.webhookAllowHosts,
    caFile: config.webhookCaFile, timeoutSeconds: config.webhookTimeoutSeconds, guessing,
  }, log, metrics);
  registerFallback(server);
  const port = await server.listen(config.host, config.port);
  const reloader = new Reloader(collection, {
    source: sourceSetting(config.source, config.gleifApi, BUNDLED_SAMPLE),
    bundledSample: BUNDLED_SAMPLE,
    dataDir: config.dataDir,
    reloadAtMinutes: config.reloadAtMinutes,
    retrySeconds: config.retrySeconds,
    log,
  }, metrics);

  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: draining requests in flight`);
    reloader.stop();
    await server.drain();
    await dispatch.stop();
    await pool.close();
    log("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));

  // A shard worker that dies takes its slice with it: until the collection is served again (from
  // its segments), requests that need that slice get 503, never a partial answer.
  pool.onSliceLost = (slice) => {
    log(`shard worker of slice ${slice} died; serving the collection again`);
    void pool.ready().then(() => reloader.recoverSlices()).catch((err: Error) => console.error(`recovery failed: ${err.message}`));
  };
  process.on("SIGHUP", () => {
    log("SIGHUP: checking the source for a new publication");
    reloader.reloadInBackground(false);
  });
  try {
    await reloader.start(config.reloadNow);
  } catch (err) {
    console.error(`load failed: ${(err as Error).message}`);
    reloader.stop();
    await server.drain(1000);
    await pool.close();
    process.exit(1);
  }
  const shownHost = config.host === "0.0.0.0" ? "127.0.0.1" : config.host;
  console.log(`listening on http://${shownHost}:${port}`);
}

main().catch((err: Error) => {
  // a refusal the operator can act on is one line; anything else is a bug, with its stack
  console.error(err instanceof StartupError ? err.message : (err.stack ?? err.message));
  process.exit(1);
});
