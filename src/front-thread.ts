// A front thread (workers/front.ts): the main thread's acceptor hands it connections, and it
// answers lookups, searches and stats itself (lei/routes.ts registerLookupRoutes) from a view of
// the collection the main thread keeps up to date, over query ports of its own to the shard
// workers; and health, readiness, the API description and 404s, which are answered at once, so
// that they pipeline as on the main thread.
// Every other route is registered too, with the same pattern, so uWS matches a request here as it
// does on the main thread; such a request is relayed there, body and all, and its answer written
// back here (http/relayed-request.ts). The per-IP limit spends from buckets every thread shares.

import type { BlockList } from "node:net";
import { parentPort, workerData, type MessagePort } from "node:worker_threads";
import type * as UWS from "uWebSockets.js";
import { CollectionView } from "./engine/collection-view.js";
import { QueryRouter } from "./engine/query-router.js";
import { WorkerLoads } from "./engine/worker-loads.js";
import { registerApiReference } from "./http/api-reference.js";
import type { FromFront, FrontRoute, FrontStatus, FrontThreadData, ToFront } from "./http/front-protocol.js";
import { SharedStatus } from "./http/shared-status.js";
import { registerFallback, registerProbes } from "./http/health.js";
import { Metrics } from "./http/metrics.js";
import { RateLimiter } from "./http/rate-limit.js";
import { HttpServer, paramCountOf } from "./http/server.js";
import { TrustedProxies } from "./http/trusted-proxies.js";
import { registerLookupRoutes } from "./lei/routes.js";
import { LeiService } from "./lei/service.js";
import { clientList, listsClient } from "./license/license-document.js";
import { releaseMemory } from "./os/release-memory.js";

/** How often what each address spent here is handed to the main thread (which shares it with other nodes). */
const SPENT_EVERY_MS = 500;

const data = workerData as FrontThreadData;
const main = parentPort!;
const post = (message: FromFront, transfer: (ArrayBuffer | MessagePort)[] = []): void => main.postMessage(message, transfer);

let nextId = 1;
const portsAsked = new Map<number, { resolve: (port: MessagePort) => void; reject: (err: Error) => void }>();
const router = new QueryRouter(
  new WorkerLoads(data.shardThreads, data.workerLoads),
  (worker) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      portsAsked.set(id, { resolve, reject });
      post({ op: "port", id, worker });
    }),
);
const view = new CollectionView(router, data.searchBudget);
for (const [gen, slices] of data.generations) view.openReaders(gen, slices);
if (data.live) view.swap(data.live.gen, data.live.sliceDocs, data.live);

const metrics = new Metrics(false);
const limiter = new RateLimiter(data.rateLimit, data.rateWindowSeconds, undefined, data.buckets ?? undefined);
limiter.drainSpent(); // starts the count the main thread collects
const server = new HttpServer(metrics, limiter, data.trustProxy.length > 0 ? new TrustedProxies(data.trustProxy) : null);
const shared = new SharedStatus<FrontStatus>(data.status);
const status = (): FrontStatus => shared.read() ?? { entitlement: null, licensed: false, behind: null };
registerLookupRoutes(server, new LeiService(view, data.cacheBytes, () => status().licensed));
registerProbes(server, view, () => status().behind);
// as on the main thread: a server that takes no licences asks nothing more of its limiter per request
if (data.acceptsLicenses) limiter.limitFor = entitled();
registerApiReference(server, {}, data.openApi);
registerFallback(server);

/** A relayed request's connection here, while its answer comes. */
interface Relayed {
  res: UWS.HttpResponse;
  aborted: boolean;
  head: { status: string; headers: [string, string][] } | null;
  headWritten: boolean;
  /** bytes of a streamed answer uWS holds until the client drains them */
  owed: number;
}
const relayed = new Map<number, Relayed>();
let nextRid = 1;

function relay(index: number, route: FrontRoute): (res: UWS.HttpResponse, raw: UWS.HttpRequest) => void {
  const paramCount = paramCountOf(route.pattern);
  return (res, raw) => {
    const rid = nextRid++;
    server.received++;
    const state: Relayed = { res, aborted: false, head: null, headWritten: false, owed: 0 };
    relayed.set(rid, state);
    res.onAborted(() => {
      state.aborted = true;
      relayed.delete(rid);
      post({ op: "aborted", rid });
    });
    const headers: [string, string][] = [];
    raw.forEach((k, v) => {
      headers.push([k, v]);
    });
    const params: string[] = [];
    for (let i = 0; i < paramCount; i++) params.push(raw.getParameter(i) ?? "");
    post({
      op: "request",
      rid,
      route: index,
      method: raw.getCaseSensitiveMethod ? raw.getCaseSensitiveMethod() : raw.getMethod().toUpperCase(),
      url: raw.getUrl(),
      query: raw.getQuery() ?? "",
      params,
      headers,
      peer: Buffer.from(res.getRemoteAddressAsText()).toString(),
    });
    if (route.takesBody)
      res.onData((chunk, last) => {
        const copy = new Uint8Array(chunk.byteLength);
        copy.set(new Uint8Array(chunk)); // uWS reuses the chunk's memory
        post({ op: "body", rid, chunk: copy, last }, [copy.buffer]);
      });
  };
}

const local = new Set(server.routes.map((r) => `${r.method} ${r.pattern}`));
data.routes.forEach((route, index) => {
  if (!local.has(`${route.method} ${route.pattern}`)) server.relayRoute(route.method, route.pattern, route.cors, relay(index, route));
});

function writeHead(state: Relayed): void {
  if (state.headWritten) return;
  state.headWritten = true;
  state.res.writeStatus(state.head?.status ?? "200 OK");
  for (const [k, v] of state.head?.headers ?? []) state.res.writeHeader(k, v);
}

function answer(m: Extract<ToFront, { rid: number }>): void {
  const state = relayed.get(m.rid);
  if (m.op === "write" && (!state || state.aborted)) {
    post({ op: "drained", rid: m.rid, bytes: m.chunk.byteLength }); // nobody to wait for
    return;
  }
  if (!state || state.aborted) return;
  const res = state.res;
  switch (m.op) {
    case "head":
      state.head = { status: m.status, headers: m.headers };
      return;
    case "write": {
      let ok = true;
      res.cork(() => {
        writeHead(state);
        ok = res.write(m.chunk);
      });
      if (ok) post({ op: "drained", rid: m.rid, bytes: m.chunk.byteLength });
      else {
        state.owed += m.chunk.byteLength;
        res.onWritable(() => {
          post({ op: "drained", rid: m.rid, bytes: state.owed });
          state.owed = 0;
          return true;
        });
      }
      return;
    }
    case "end":
      relayed.delete(m.rid);
      res.cork(() => {
        writeHead(state);
        res.end(m.body ?? undefined, m.close);
      });
      return;
    case "close":
      relayed.delete(m.rid);
      res.close();
      return;
  }
}

/** A client's own rate limit under the licence, its address list made again only when the status changes. */
function entitled(): (ip: string) => number | null {
  let version = -2;
  let clients: { list: BlockList; limit: number } | null = null;
  return (ip) => {
    const entitlement = status().entitlement;
    if (shared.version !== version) {
      version = shared.version;
      clients = entitlement ? { list: clientList(entitlement.clients), limit: entitlement.limit } : null;
    }
    return clients !== null && listsClient(clients.list, ip) ? clients.limit : null;
  };
}

main.on("message", (m: ToFront) => {
  switch (m.op) {
    case "head":
    case "write":
    case "end":
    case "close":
      return answer(m);
    case "open":
      view.openReaders(m.gen, m.slices);
      return post({ op: "done", id: m.id });
    case "swap":
      return view.swap(m.live.gen, m.live.sliceDocs, m.live);
    case "release":
      // the generation's slice memories are shared: this thread's references to them go only
      // with a collection, which an idle front thread would not run for hours after a reload
      void view.release(m.gen).then(() => {
        releaseMemory();
        post({ op: "done", id: m.id });
      });
      return;
    case "port": {
      const asked = portsAsked.get(m.id);
      portsAsked.delete(m.id);
      if (m.port) asked?.resolve(m.port);
      else asked?.reject(new Error(m.error ?? "no port"));
      return;
    }
    case "down":
      return router.down(m.worker, `shard worker ${m.worker} is gone`);
    case "serve":
      return router.serve(m.worker);
    case "counts":
      return post({ op: "counts", id: m.id, counts: metrics.counts(router.requestsSent, server.received) });
    case "drain":
      void server.drain().then(() => post({ op: "done", id: m.id }));
      return;
    case "stop":
      return end();
  }
});

const spentTimer = setInterval(() => {
  const spent = limiter.drainSpent();
  if (spent.size > 0) post({ op: "spent", spent: [...spent] });
}, SPENT_EVERY_MS);
spentTimer.unref();

/**
 * Ends the thread: its connections closed first, since a thread whose loop ends with uWS's
 * sockets still open aborts the whole process. The main thread starts it again if it must.
 */
function end(): void {
  clearInterval(spentTimer);
  server.app.close();
  router.close("the front thread is ending");
  main.close();
}

// what would end the thread anyway ends it this way, said on the main thread's log
process.on("uncaughtException", (err) => {
  post({ op: "log", line: `front thread failed: ${err.stack ?? err.message}` });
  end();
});

post({ op: "ready", descriptor: server.app.getDescriptor() });
