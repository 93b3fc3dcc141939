// The shared store's schema, one versioned step at a time (applied by shared-db.ts). A step is
// never edited once released: a change is a new step.

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "api keys",
    sql: `
      CREATE TABLE api_keys (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        value TEXT NOT NULL UNIQUE,
        description TEXT NOT NULL,
        actions JSONB NOT NULL,
        collections JSONB NOT NULL,
        expires_at BIGINT NOT NULL,
        autodelete BOOLEAN NOT NULL
      );
      -- a row per table that nodes keep copies of, bumped by each write in its transaction
      CREATE TABLE state_versions (name TEXT PRIMARY KEY, version BIGINT NOT NULL);
      INSERT INTO state_versions (name, version) VALUES ('api_keys', 0);
      -- secrets every node must share: the generated bootstrap key
      CREATE TABLE shared_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL);
    `,
  },
  {
    version: 2,
    name: "search settings",
    sql: `
      -- synonyms, presets, stopwords and aliases of the keyed engine API
      CREATE TABLE search_settings (kind TEXT NOT NULL, name TEXT NOT NULL, body JSONB NOT NULL, PRIMARY KEY (kind, name));
      INSERT INTO state_versions (name, version) VALUES ('search_settings', 0);
    `,
  },
  {
    version: 3,
    name: "node publications",
    sql: `
      -- the collection each node serves: a node behind its peers is not ready
      CREATE TABLE node_publications (
        node TEXT PRIMARY KEY,
        collection TEXT NOT NULL,
        published TIMESTAMPTZ,
        fallback BOOLEAN NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      INSERT INTO state_versions (name, version) VALUES ('node_publications', 0);
    `,
  },
  {
    version: 4,
    name: "rate limit spending",
    sql: `
      -- each node's tokens spent per address in one tick of a limiter, for the others to charge
      CREATE TABLE rate_spent (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        node TEXT NOT NULL,
        limiter TEXT NOT NULL,
        spent JSONB NOT NULL,
        at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
    `,
  },
  {
    version: 5,
    name: "licence",
    sql: `
      -- the installation's one activated licence, for every node
      CREATE TABLE license (id INTEGER PRIMARY KEY CHECK (id = 1), document TEXT NOT NULL, signature TEXT NOT NULL);
      INSERT INTO state_versions (name, version) VALUES ('license', 0);
    `,
  },
  {
    version: 6,
    name: "api key changes by version",
    sql: `
      -- a node reads only the keys written, and the ids deleted, since the version it holds
      ALTER TABLE api_keys ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
      CREATE INDEX api_keys_version ON api_keys (version);
      CREATE TABLE api_key_deletions (id BIGINT PRIMARY KEY, version BIGINT NOT NULL);
      CREATE INDEX api_key_deletions_version ON api_key_deletions (version);
    `,
  },
];
