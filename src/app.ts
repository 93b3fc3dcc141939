// The whole server, wired: the shard pool, the collection, the state store, every area's routes
// in the order the front matches them, the API's description, and the reloader. Nothing listens
// and nothing loads yet: main.ts does both, and tests read the registered routes.

import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Config } from "./config/cli.js";
import { Collection } from "./engine/collection.js";
import { ShardPool } from "./engine/pool.js";
import { ENGINE_SCHEMAS } from "./engine-api/api-schemas.js";
import { registerCollectionRoutes } from "./engine-api/collections-routes.js";
import { SearchSettings } from "./engine-api/search-settings.js";
import { nodeIdOf, PeerPublications } from "./golden-copy/peer-publications.js";
import { Reloader, sourceSetting } from "./golden-copy/reloader.js";
import { backendsOf, changeStoreOf, watchStoreOf, webhookStoresOf } from "./store/backends.js";
import { ChangeFeed } from "./changes/feed.js";
import { CHANGE_SCHEMAS } from "./changes/query.js";
import { registerChangeRoutes } from "./changes/routes.js";
import { openSharedDb } from "./store/pg/shared-db.js";
import { registerApiReference } from "./http/api-reference.js";
import { registerFallback, registerHealthRoutes } from "./http/health.js";
import { FrontWork } from "./http/front-work.js";
import { FrontThreads } from "./http/front-threads.js";
import { Metrics } from "./http/metrics.js";
import { RateLimiter } from "./http/rate-limit.js";
import { SharedRateLimits } from "./http/shared-rate-limits.js";
import { HttpServer } from "./http/server.js";
import { TrustedProxies } from "./http/trusted-proxies.js";
import { KeyAuth } from "./keys/auth.js";
import { bootstrapKey, sharedBootstrapKey } from "./keys/bootstrap.js";
import { KeyStore } from "./keys/key-store.js";
import { KEY_SCHEMAS, registerKeyRoutes, startKeyHousekeeping } from "./keys/keys-routes.js";
import { unsupportedPatternWarnings } from "./keys/model.js";
import { PUBLIC_SCHEMAS } from "./lei/api-schemas.js";
import { BATCH_SCHEMAS } from "./lei/batch-lookup.js";
import { registerLeiRoutes } from "./lei/routes.js";
import { FAMILY_SCHEMAS } from "./level2/family-schemas.js";
import { FamilyService } from "./level2/family-service.js";
import { registerFamilyRoutes } from "./level2/routes.js";
import { LeiService } from "./lei/service.js";
import { warmUp, type WarmUpResult } from "./lei/warm-up.js";
import { RECONCILE_SCHEMAS, registerReconcileRoutes } from "./match/reconcile.js";
import { MATCH_SCHEMAS, registerMatchRoutes } from "./match/routes.js";
import { FrontData } from "./mcp/front-data.js";
import { BUNDLED_ELF_LIST, ElfListError, readElfList, type ElfList } from "./legal-forms/elf-list.js";
import { StartupError } from "./config/startup-error.js";
import { LegalFormWords } from "./match/legal-form-words.js";
import { Matcher } from "./match/matcher.js";
import { McpThreads } from "./mcp/mcp-threads.js";
import { registerMcpRoutes } from "./mcp/routes.js";
import { registerWebPage } from "./web/routes.js";
import { LicenseState } from "./license/license-state.js";
import { TrustedClock } from "./time/trusted-clock.js";
import { LICENSE_SCHEMAS, registerLicenseRoutes } from "./license/routes.js";
import { openStateDb } from "./store/state-db.js";
import { diskFloor } from "./store/disk-floor.js";
import { WEBHOOK_SCHEMAS } from "./webhooks/api-docs.js";
import { startWebhookArea, type WebhookAreaHandle } from "./webhooks/area.js";
import { operatorKey } from "./webhooks/operator-key.js";
import { WATCHLIST_SCHEMAS } from "./watchlists/api-docs.js";
import { liveDataOf } from "./watchlists/live-data.js";

export const BUNDLED_SAMPLE = fileURLToPath(new URL("../../data/sample/real-sample.csv", import.meta.url));
const bundled = (name: string): string => fileURLToPath(new URL(`../../data/sample/level2/${name}`, import.meta.url));
/** the real Level 2 rows that go with the bundled sample (data/sample/level2/README.md) */
export const BUNDLED_LEVEL2 = {
  rr: bundled("rr.csv"),
  repex: bundled("repex.csv"),
  isin: bundled("isin-lei.csv"),
  bic: bundled("bic-lei.csv"),
};

/** The ELF code list: --legal-forms, else the bundled one; a file that is not one stops the start. */
function readLegalForms(given: string | null): { file: string; list: ElfList } {
  const file = given ?? BUNDLED_ELF_LIST;
  try {
    return { file, list: readElfList(file) };
  } catch (err) {
    if (err instanceof ElfListError) throw new StartupError(`--legal-forms: ${err.message}`);
    throw err;
  }
}

export interface App {
  server: HttpServer;
  /** the threads besides the main one that serve HTTP; null when the main thread serves alone */
  frontThreads: FrontThreads | null;
  pool: ShardPool;
  reloader: Reloader;
  /** the live collection: which slices it has */
  collection: Collection;
  dispatch: WebhookAreaHandle;
  /** the OpenAPI document /openapi.json serves */
  openApi(): object;
  /** searches and looks up in the live collection once, so the first clients meet optimised code (lei/warm-up.ts) */
  warmUp(): Promise<WarmUpResult>;
  /** stops the timers and threads the app started (not the listening socket) */
  close(): Promise<void>;
}

export async function buildApp(config: Config, log: (line: string) => void): Promise<App> {
  // before anything starts: a list that is not one stops the start in one line
  const legalForms = readLegalForms(config.legalForms);
  log(`legal-form names from ${legalForms.file} (${legalForms.list.codes} codes)`);
  const pool = new ShardPool(config.workers ?? availableParallelism());
  await pool.ready();
  const collection = new Collection(pool, { fixed: config.shards }, config.frontSearchBudget);
  const metrics = new Metrics();
  const proxies = config.trustProxy.length > 0 ? new TrustedProxies(config.trustProxy) : null;
  const limiter = new RateLimiter(config.rateLimit, config.rateWindowSeconds);
  const server = new HttpServer(metrics, limiter, proxies);
  diskFloor.set(config.upstream.diskFloorBytes); // uploads keep it too
  // the change feed: each load is compared with the live collection before it goes live (src/changes/)
  const changeFeed = new ChangeFeed(collection);
  const reloader = new Reloader(
    collection,
    {
      source: sourceSetting(config.source, { api: config.gleifApi, mappingApi: config.gleifMappingApi }, BUNDLED_SAMPLE, config.level2),
      bundledSample: BUNDLED_SAMPLE,
      bundledLevel2: BUNDLED_LEVEL2,
      dataDir: config.dataDir,
      reloadAtMinutes: config.reloadAtMinutes,
      deltaHours: config.deltaHours,
      retrySeconds: config.retrySeconds,
      limits: config.upstream,
      legalForms: { file: legalForms.file, digest: legalForms.list.digest, rows: legalForms.list.rows },
      changes: changeFeed,
      log,
    },
    metrics,
  );

  const stateDb = openStateDb(config.dataDir);
  // --database: the state every node must share lives in PostgreSQL (docs/scale-out.md)
  const shared = config.database === null ? null : await openSharedDb(config.database, log, config.databaseLimits);
  const backends = backendsOf(stateDb, shared);
  changeFeed.use(changeStoreOf(stateDb, shared));
  changeFeed.startRetention(config.changesRetentionDays, log);
  metrics.gauge(
    "leidex_changes_detected",
    "Field changes the last load found against the collection it replaced (the change feed).",
    () => {
      const found = collection.current?.changes;
      return found ? [[{}, found.detected]] : [];
    },
  );
  metrics.gauge("leidex_changes_detection_seconds", "Seconds the last load's change detection took, storing included.", () => {
    const found = collection.current?.changes;
    return found ? [[{}, found.seconds]] : [];
  });
  /** this node's name among the nodes on the shared store */
  const node = shared ? nodeIdOf(config.dataDir) : "";
  const nowSeconds = (): number => Math.floor(Date.now() / 1000);
  // the licence's expiry is judged on a clock a forward step cannot move (src/time/trusted-clock.ts)
  const licenceClock = new TrustedClock();
  const license = await LicenseState.open(backends.license, config.licensePublicKey, () => Math.floor(licenceClock.now() / 1000), log);
  // a server that takes no licences asks nothing more of its limiter per request
  if (license.acceptsLicenses) limiter.limitFor = (ip) => license.rateLimitFor(ip);
  metrics.gauge("leidex_license_active", "1 while an activated licence is valid, else 0.", () => [[{}, license.isActive ? 1 : 0]]);

  // --database: this node records what it serves, and is not ready while a peer serves a newer publication
  const peers = shared ? new PeerPublications(shared, node, () => collection.current, log) : null;
  if (peers) {
    collection.onSwap((live) => {
      peers.announce(live).catch((err: Error) => log(`could not record the publication this node serves: ${err.message}`));
    });
    await peers.start(() => reloader.reloadInBackground(false));
  }
  registerHealthRoutes(server, collection, metrics, peers);
  /** made once every route is registered (below) */
  let frontThreads: FrontThreads | null = null;
  metrics.counterFrom(
    "leidex_shard_requests_total",
    "Search, facet and export requests sent to each shard worker (every worker serves every slice).",
    () => pool.requestsSent.map((n, w) => [{ worker: String(w) }, n + (frontThreads?.shardRequestsSent(w) ?? 0)]),
    ["worker"],
  );
  // each front thread has an answer cache of its own: the budget is shared out
  const frontCount = config.frontThreads ?? availableParallelism();
  const cacheBytesPerThread = Math.floor((config.cacheMegabytes * 1024 * 1024) / frontCount);
  const leiService = new LeiService(collection, cacheBytesPerThread, () => license.isActive);
  const familyService = new FamilyService(collection, leiService);
  // batch lookups, match and reconcile batches share the front's turns of bulk work
  const bulkWork = new FrontWork(metrics);
  registerLeiRoutes(
    server,
    leiService,
    (ip) => license.batchSizeFor(ip),
    (input) => familyService.resolve(input),
    bulkWork,
  );
  registerFamilyRoutes(server, familyService);
  registerChangeRoutes(
    server,
    () => changeFeed.changes,
    (lei) => collection.hasLei(lei),
  );
  const formWords = new LegalFormWords(legalForms.list);
  registerMatchRoutes(server, leiService, (input) => familyService.resolve(input), bulkWork, formWords);
  registerReconcileRoutes(server, leiService, (input) => familyService.resolve(input), bulkWork, formWords);
  // the MCP SDK runs on threads of its own; the tools' data calls come back here (src/mcp/mcp-threads.ts)
  const matcher = new Matcher(leiService, (input) => familyService.resolve(input), formWords);
  const history = { store: () => changeFeed.changes, holds: (lei: string) => collection.hasLei(lei) };
  const mcp = new McpThreads(new FrontData(leiService, familyService, matcher, history), { threads: config.mcpThreads, log, metrics });
  mcp.start();
  registerMcpRoutes(server, mcp, { allowedOrigins: config.mcpOrigins });
  registerWebPage(server, (lei) => familyService.knows(lei));

  const keyStore = await KeyStore.open(backends.keys);
  for (const line of unsupportedPatternWarnings(keyStore.list())) log(line);
  const settings = await SearchSettings.open(backends.settings);
  const bootstrap = shared && config.apiKey === null ? await sharedBootstrapKey(shared) : bootstrapKey(config.apiKey, config.dataDir);
  log(bootstrap.banner);
  // a guard against guessing: 30 bad keys a minute per address, then 429, whichever key family
  const guessing = new RateLimiter(30, 60);
  // --database: what an address spends on one node is charged on the others, once a second
  const sharedLimits = shared ? new SharedRateLimits(shared, node, { requests: limiter, guessing }, log) : null;
  await sharedLimits?.start();
  const keyAuth = new KeyAuth(keyStore, bootstrap.value, guessing, nowSeconds);
  registerKeyRoutes(server, keyAuth, keyStore, nowSeconds);
  registerLicenseRoutes(server, license, keyAuth);
  registerCollectionRoutes(server, {
    auth: keyAuth,
    settings,
    service: leiService,
    collection,
    reload: () => reloader.reloadInBackground(false),
    importFile: (path, opts) => reloader.importFile(path, opts),
    uploadDir: join(config.dataDir, "downloads"),
    log,
  });
  const housekeeping = startKeyHousekeeping(keyStore, nowSeconds, log);
  const webhookStores = await webhookStoresOf(stateDb, shared, {
    node: node || "node",
    attemptTimeoutMs: config.webhookTimeoutSeconds * 1000,
    log,
  });
  const dispatch = startWebhookArea(
    server,
    webhookStores,
    {
      operatorKey: await operatorKey(config.operatorKey, config.dataDir, shared),
      dispatchers: config.dispatchers,
      allowHosts: config.webhookAllowHosts,
      caFile: config.webhookCaFile,
      timeoutSeconds: config.webhookTimeoutSeconds,
      guessing,
    },
    log,
    metrics,
    // watchlists: events of watched LEIs from the change feed, and renewal reminders (src/watchlists/)
    {
      store: watchStoreOf(stateDb, shared),
      changes: () => changeFeed.changes,
      live: liveDataOf(collection, leiService),
      me: node || "node",
    },
  );
  collection.onSwap(() => dispatch.loaded());

  const openApi = registerApiReference(server, {
    ...PUBLIC_SCHEMAS,
    ...BATCH_SCHEMAS,
    ...FAMILY_SCHEMAS,
    ...MATCH_SCHEMAS,
    ...RECONCILE_SCHEMAS,
    ...ENGINE_SCHEMAS,
    ...KEY_SCHEMAS,
    ...LICENSE_SCHEMAS,
    ...WEBHOOK_SCHEMAS,
    ...CHANGE_SCHEMAS,
    ...WATCHLIST_SCHEMAS,
  });
  registerFallback(server);

  // every route is registered: the front threads register the same, and answer the hottest themselves
  frontThreads =
    frontCount > 1
      ? new FrontThreads({
          count: frontCount - 1,
          pool,
          collection,
          server,
          metrics,
          limiter,
          trustProxy: config.trustProxy,
          cacheBytes: cacheBytesPerThread,
          searchBudget: config.frontSearchBudget,
          status: () => ({ entitlement: license.rateEntitlement(), licensed: license.isActive, behind: peers?.behind() ?? null }),
          openApi,
          acceptsLicenses: license.acceptsLicenses,
          log,
        })
      : null;
  const threads = frontThreads;
  if (threads) {
    metrics.countsOf(() => threads.refreshCounts());
    // a licence activated or removed, here or on another node, holds on every thread at once; so does readiness
    license.changed = () => threads.publishStatus();
    if (peers) peers.onNewest = () => threads.publishStatus();
    collection.onSwap(() => threads.publishStatus());
  }
  metrics.counterFrom(
    "leidex_front_requests_total",
    "Requests that arrived on each front thread's connections (thread 0 is the main thread, which also answers what the others relay).",
    () => [
      [{ thread: "0" }, server.received],
      ...(threads?.received() ?? []).map(([i, n]): [Record<string, string>, number] => [{ thread: String(i) }, n]),
    ],
    ["thread"],
  );

  return {
    server,
    frontThreads,
    pool,
    reloader,
    collection,
    dispatch,
    openApi,
    warmUp: () => warmUp(leiService),
    async close() {
      clearInterval(housekeeping);
      changeFeed.stop();
      reloader.stop();
      await frontThreads?.close();
      await dispatch.stop();
      await mcp.stop();
      await pool.close();
      peers?.close();
      sharedLimits?.close();
      await keyStore.close();
      await settings.close();
      await license.close();
      await shared?.close();
      stateDb.close();
    },
  };
}
