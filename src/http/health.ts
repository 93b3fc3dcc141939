// Operational endpoints that need no credential: liveness, readiness and Prometheus metrics.

import type { Collection } from "../engine/collection.js";
import type { Metrics } from "./metrics.js";
import type { HttpServer } from "./server.js";

const opsError = (message: string): string => JSON.stringify({ error: message });

export function registerHealthRoutes(server: HttpServer, collection: Collection, metrics: Metrics): void {
  server.route("get", "/health", { name: "health", errorBody: opsError }, (_req, reply) => {
    reply.json(200, '{"status":"ok"}');
  });
  server.route("get", "/health/ready", { name: "ready", errorBody: opsError }, (_req, reply) => {
    const live = collection.current;
    if (!live) return reply.json(503, '{"status":"loading"}');
    reply.json(200, JSON.stringify({ status: "ready", collection: live.name, records: live.docs }));
  });
  server.route("get", "/metrics", { name: "metrics", errorBody: opsError }, (_req, reply) => {
    return metrics.render().then((text) => reply.send(200, text, metrics.contentType));
  });
  metrics.gauge("leidex_slice_documents", "Documents per slice of the live collection.", () =>
    (collection.current?.sliceDocs ?? []).map((n, s) => [{ slice: String(s) }, n]), ["slice"]);
  metrics.gauge("leidex_collection_documents", "Documents in the live collection.", () => [[{}, collection.current?.docs ?? 0]]);
}

export function registerFallback(server: HttpServer): void {
  server.route("any", "/*", { name: "not-found", errorBody: opsError }, (req, reply) => {
    reply.error(404, `no route for ${req.method} ${req.path}`);
  });
}
