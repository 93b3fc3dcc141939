// Operational endpoints that need no credential: liveness, readiness and Prometheus metrics.

import type { CollectionView } from "../engine/collection-view.js";
import type { Behind, PeerPublications } from "../golden-copy/peer-publications.js";
import { staleParts } from "../golden-copy/source-parts.js";
import type { Metrics } from "./metrics.js";
import type { HttpServer } from "./server.js";

const status = (values: string[]): Record<string, unknown> => ({
  type: "object",
  required: ["status"],
  properties: { status: { type: "string", enum: values } },
});

export function registerHealthRoutes(
  server: HttpServer,
  collection: CollectionView,
  metrics: Metrics,
  peers: PeerPublications | null,
): void {
  registerProbes(server, collection, () => peers?.behind() ?? null);
  server.route(
    "get",
    "/metrics",
    {
      name: "metrics",
      area: "ops",
      doc: {
        summary: "Prometheus metrics",
        description:
          "Request durations per route and status, rate-limit refusals, load failures, collection sizes, webhook dispatch, and the process's and Node.js's own metrics.",
        responses: {
          200: { description: "The Prometheus text format", contentType: "text/plain; version=0.0.4", schema: { type: "string" } },
        },
      },
    },
    (_req, reply) => {
      return metrics.render().then((text) => reply.send(200, text, metrics.contentType));
    },
  );
  metrics.gauge(
    "leidex_slice_documents",
    "Documents per slice of the live collection.",
    () => (collection.current?.sliceDocs ?? []).map((n, s) => [{ slice: String(s) }, n]),
    ["slice"],
  );
  metrics.gauge("leidex_collection_documents", "Documents in the live collection.", () => [[{}, collection.current?.docs ?? 0]]);
}

/**
 * Liveness and readiness, answered at once: on every front thread too (`behind`: with --database,
 * whether a peer serves a newer publication).
 */
export function registerProbes(server: HttpServer, collection: CollectionView, behind: () => Behind | null): void {
  server.route(
    "get",
    "/health",
    {
      name: "health",
      area: "ops",
      doc: {
        summary: "Liveness: the process answers",
        responses: { 200: { description: "Alive", schema: status(["ok"]), example: { status: "ok" } } },
      },
    },
    (_req, reply) => {
      reply.json(200, '{"status":"ok"}');
    },
  );
  server.route(
    "get",
    "/health/ready",
    {
      name: "ready",
      area: "ops",
      doc: {
        summary: "Readiness: a collection is live (and, with --database, no older than its peers')",
        responses: {
          200: {
            description:
              "Serving. `staleParts`, when there are any, lists the parts fetched apart from Level 1 (rr, repex, isin, bic) that the last load could not fetch: a stale one is an earlier load's copy, a missing one is empty. Level 1 is current, so they do not make the node not ready",
            example: {
              status: "ready",
              collection: "lei_20260930-1600",
              records: 3430000,
              staleParts: [
                {
                  part: "rr",
                  status: "stale",
                  since: "2026-09-30T08:41:12.000Z",
                  reason: "GLEIF API https://api.gleif.org/api/v2/golden-copies/publishes/rr/latest answered HTTP 503",
                },
              ],
            },
            schema: {
              type: "object",
              required: ["status", "collection", "records"],
              properties: {
                status: { const: "ready" },
                collection: { type: "string" },
                records: { type: "integer" },
                staleParts: {
                  type: "array",
                  items: {
                    type: "object",
                    required: ["part", "status", "since", "reason"],
                    properties: {
                      part: { type: "string", enum: ["rr", "repex", "isin", "bic"] },
                      status: { type: "string", enum: ["stale", "missing"] },
                      since: { type: ["string", "null"] },
                      reason: { type: ["string", "null"] },
                    },
                  },
                },
              },
            },
          },
          503: {
            description:
              "Still loading the first collection (`loading`), or, with --database, serving an older publication than another node (`behind`: this node loads the source again)",
            example: {
              status: "behind",
              collection: "lei_20260930-0800",
              published: "2026-09-30T08:00:00Z",
              peer: { node: "node-4f1c2a9b7e03", collection: "lei_20260930-1600", published: "2026-09-30T16:00:00Z" },
              reason: "serving the publication of 2026-09-30T08:00:00Z while node node-4f1c2a9b7e03 serves 2026-09-30T16:00:00Z",
            },
            schema: {
              type: "object",
              required: ["status"],
              properties: {
                status: { type: "string", enum: ["loading", "behind"] },
                collection: { type: "string" },
                published: { type: ["string", "null"] },
                peer: {
                  type: "object",
                  required: ["node", "collection", "published"],
                  properties: { node: { type: "string" }, collection: { type: "string" }, published: { type: "string" } },
                },
                reason: { type: "string" },
              },
            },
          },
        },
      },
    },
    (_req, reply) => {
      const live = collection.current;
      if (!live) return reply.json(503, '{"status":"loading"}');
      const late = behind();
      if (late) {
        const { peer, reason } = late;
        return reply.json(503, JSON.stringify({ status: "behind", collection: live.name, published: live.published, peer, reason }));
      }
      const stale = staleParts(live.parts);
      const body = { status: "ready", collection: live.name, records: live.docs, ...(stale.length > 0 ? { staleParts: stale } : {}) };
      reply.json(200, JSON.stringify(body));
    },
  );
}

export function registerFallback(server: HttpServer): void {
  server.route("any", "/*", { name: "not-found", area: "ops" }, (req, reply) => {
    reply.error(404, `no route for ${req.method} ${req.path}`);
  });
}
