// A batch of shard requests crosses to a worker as one flat buffer (engine/shard-codec.ts): every
// setting of a search must arrive as it was sent, or the worker answers another query.

import t from "tap";
import { decodeRequests, encodeRequests } from "../src/engine/shard-codec.js";
import type { ShardRequest } from "../src/engine/protocol.js";

t.test("search requests arrive with every setting they were sent with", async (t) => {
  const requests: ShardRequest[] = [
    {
      kind: "search",
      guess: true,
      alone: true,
      query: { q: "Ärzte Bank AG", fields: "all", filters: {}, facets: [], window: 20, typoMask: 0, dropTokens: false },
    },
    {
      kind: "search",
      guess: false,
      query: {
        q: "kingston fonds",
        fields: "name",
        filters: { country: ["DE", "AT"] },
        facets: ["status", "country"],
        window: 1000,
        typoMask: 3,
        dropTokens: true,
        maxTypos: 1,
        prefix: false,
        exclude: { status: ["INACTIVE"] },
      },
    },
    {
      kind: "search",
      guess: false,
      query: {
        q: null,
        fields: "address",
        filters: { city: ["Berlin"] },
        facets: [],
        window: 10,
        typoMask: 0,
        dropTokens: true,
        prefix: true,
      },
    },
    { kind: "facet", field: "country" },
  ];
  t.same(decodeRequests(encodeRequests(requests)), requests);
});
