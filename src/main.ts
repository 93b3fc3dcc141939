// Leidex entry point: configuration, the shard pool, the first load, then the HTTP front.

import { join, resolve } from "node:path";
import { ConfigError, parseConfig, usage, type Config } from "./config/cli.js";
import { StartupError } from "./config/startup-error.js";
import { pinMmapThreshold } from "./os/native-heap.js";
import { storeFailureLine } from "./store/write-failure.js";

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

  // what the server derives at run time goes under the data directory, never the installation
  // (src/os/native-cache.ts); set before the app and its threads load the HTTP addon
  process.env.LEIDEX_CACHE_DIR ??= join(resolve(config.dataDir), "cache");
  const { buildApp } = await import("./app.js");
  if (!pinMmapThreshold()) log("no glibc malloc controls here: memory a load frees may stay with the process until a restart");
  const app = await buildApp(config, log);
  const { server, pool, reloader, dispatch, frontThreads } = app;
  const port = await server.listen(config.host, config.port, (await frontThreads?.start()) ?? []);

  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: draining requests in flight`);
    reloader.stop();
    await Promise.all([server.drain(), frontThreads?.drain()]);
    await frontThreads?.close();
    await dispatch.stop();
    await pool.close();
    log("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));

  // A shard worker that dies loses none of the index (its memory is shared): its successor serves
  // every slice again, and takes requests once it does. A successor that cannot serve them is
  // left out of the rotation; the other workers go on answering.
  pool.onWorkerError = (error) => console.error(`a shard worker failed: ${error.message}`);
  pool.onWorkerReplaced = (w, error) => {
    if (error) console.error(`shard worker ${w} died and its successor cannot serve: ${error.message}`);
    else log(`shard worker ${w} died; its successor serves every slice`);
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
    await frontThreads?.close();
    await pool.close();
    process.exit(1);
  }
  try {
    const warmed = await app.warmUp();
    if (warmed.searches === 0) log(`no warm-up: ${warmed.records} records are searched fast from the first request`);
    else log(`warmed up: ${warmed.searches} searches and ${warmed.lookups} lookups in ${warmed.ms.toFixed(0)} ms`);
  } catch (err) {
    log(`warm-up stopped: ${(err as Error).message}`);
  }
  const shownHost = config.host === "0.0.0.0" ? "127.0.0.1" : config.host;
  console.log(`listening on http://${shownHost}:${port}`);
}

main().catch((err: Error) => {
  // a refusal the operator can act on is one line (a store failing or busy at start too); anything else is a bug, with its stack
  const store = storeFailureLine(err);
  console.error(
    err instanceof StartupError ? err.message : store !== null ? `cannot start: ${store}; start again` : (err.stack ?? err.message),
  );
  process.exit(1);
});
