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
  {
    version: 7,
    name: "mail event webhooks",
    sql: `
      -- what every node keeps a copy of (one version for all four): tenants, their keys, webhooks, inbound routes
      CREATE TABLE tenants (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL);
      CREATE TABLE tenant_keys (
        id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL REFERENCES tenants(id), hash TEXT NOT NULL UNIQUE,
        prefix TEXT NOT NULL, created_at TEXT NOT NULL);
      CREATE TABLE webhooks (
        id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, url TEXT NOT NULL, event_types JSONB NOT NULL, secret TEXT NOT NULL,
        status TEXT NOT NULL, disabled_reason TEXT, max_concurrency INTEGER NOT NULL, created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL, failing_since BIGINT);
      CREATE TABLE inbound_routes (
        id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, match TEXT NOT NULL, url TEXT NOT NULL, secret TEXT NOT NULL,
        max_concurrency INTEGER NOT NULL, created_at TEXT NOT NULL);
      INSERT INTO state_versions (name, version) VALUES ('webhook_config', 0);
      -- read where they are needed, never copied
      CREATE TABLE suppressions (
        tenant_id TEXT NOT NULL, address TEXT NOT NULL, reason TEXT NOT NULL, created_at TEXT NOT NULL,
        PRIMARY KEY (tenant_id, address));
      CREATE TABLE inbound_messages (id TEXT PRIMARY KEY, route_id TEXT NOT NULL, received_at BIGINT NOT NULL);
      CREATE TABLE mail_events (id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, received_at BIGINT NOT NULL);
      CREATE TABLE messages (
        tenant_id TEXT NOT NULL, message_id TEXT NOT NULL, state TEXT NOT NULL, delivered_at BIGINT, updated_at BIGINT NOT NULL,
        PRIMARY KEY (tenant_id, message_id));
      -- the outbox: leased_by names the node (one run of it) that has the row on its way
      CREATE TABLE deliveries (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, id TEXT NOT NULL UNIQUE, webhook_id TEXT NOT NULL,
        tenant_id TEXT NOT NULL, event_id TEXT NOT NULL, event_type TEXT NOT NULL, body TEXT NOT NULL, status TEXT NOT NULL,
        attempts INTEGER NOT NULL, next_attempt_at BIGINT NOT NULL, trigger TEXT NOT NULL, created_at BIGINT NOT NULL,
        leased_by TEXT, finished_at BIGINT);
      -- what a claim may take: pending rows not on their way, first attempts in event order, retries by due time
      CREATE INDEX deliveries_fresh ON deliveries (webhook_id, seq) WHERE status = 'pending' AND attempts = 0 AND leased_by IS NULL;
      CREATE INDEX deliveries_retry ON deliveries (webhook_id, next_attempt_at) WHERE status = 'pending' AND attempts > 0 AND leased_by IS NULL;
      CREATE INDEX deliveries_finished ON deliveries (status, finished_at) WHERE finished_at IS NOT NULL;
      CREATE INDEX deliveries_open ON deliveries (webhook_id, status) WHERE status <> 'delivered';
      CREATE TABLE delivery_attempts (
        row BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, delivery_id TEXT NOT NULL, webhook_id TEXT NOT NULL,
        event_id TEXT NOT NULL, event_type TEXT NOT NULL, attempt INTEGER NOT NULL, trigger TEXT NOT NULL, status_code INTEGER,
        error TEXT, duration_ms INTEGER NOT NULL, response_snippet TEXT NOT NULL, attempted_at BIGINT NOT NULL,
        next_attempt_at BIGINT, outcome TEXT NOT NULL);
      CREATE INDEX attempts_by_webhook ON delivery_attempts (webhook_id, row);
      -- pending rows per endpoint, the sum of its slots: each connection adds to its own slot, so that
      -- the nodes' intake and results do not queue on one row per endpoint (two transactions meet on a
      -- row only when their connections share a slot: a deadlock then is rare, and retried). New rows
      -- are counted by whoever adds them, in endpoint order; rows leaving or re-entering pending by a trigger
      CREATE TABLE pending_counts (webhook_id TEXT NOT NULL, slot SMALLINT NOT NULL, tenant_id TEXT NOT NULL, n BIGINT NOT NULL,
        PRIMARY KEY (webhook_id, slot));
      CREATE INDEX pending_counts_tenant ON pending_counts (tenant_id);
      CREATE FUNCTION leidex_count_slot() RETURNS SMALLINT LANGUAGE sql AS 'SELECT (pg_backend_pid() % 64)::smallint';
      CREATE FUNCTION leidex_add_pending(changes JSONB) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE r RECORD;
      BEGIN
        FOR r IN SELECT c.webhook_id, c.tenant_id, c.n FROM jsonb_to_recordset(changes) AS c(webhook_id TEXT, tenant_id TEXT, n BIGINT)
                 WHERE c.n <> 0 ORDER BY c.webhook_id LOOP
          INSERT INTO pending_counts (webhook_id, slot, tenant_id, n) VALUES (r.webhook_id, leidex_count_slot(), r.tenant_id, r.n)
            ON CONFLICT (webhook_id, slot) DO UPDATE SET n = pending_counts.n + excluded.n;
        END LOOP;
      END $$;
      CREATE FUNCTION leidex_count_pending() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          INSERT INTO pending_counts (webhook_id, slot, tenant_id, n) VALUES (OLD.webhook_id, leidex_count_slot(), OLD.tenant_id, -1)
            ON CONFLICT (webhook_id, slot) DO UPDATE SET n = pending_counts.n - 1;
          RETURN OLD;
        END IF;
        INSERT INTO pending_counts (webhook_id, slot, tenant_id, n)
          VALUES (NEW.webhook_id, leidex_count_slot(), NEW.tenant_id, CASE WHEN NEW.status = 'pending' THEN 1 ELSE -1 END)
          ON CONFLICT (webhook_id, slot) DO UPDATE SET n = pending_counts.n + excluded.n;
        RETURN NEW;
      END $$;
      CREATE TRIGGER deliveries_pending_update AFTER UPDATE OF status ON deliveries FOR EACH ROW
        WHEN ((OLD.status = 'pending') <> (NEW.status = 'pending')) EXECUTE FUNCTION leidex_count_pending();
      CREATE TRIGGER deliveries_pending_delete AFTER DELETE ON deliveries FOR EACH ROW
        WHEN (OLD.status = 'pending') EXECUTE FUNCTION leidex_count_pending();
      -- dispatch across nodes: the nodes dispatching now, and which of them sends each endpoint's deliveries
      CREATE TABLE dispatch_nodes (id TEXT PRIMARY KEY, alive_until TIMESTAMPTZ NOT NULL);
      CREATE TABLE endpoint_leases (endpoint_id TEXT PRIMARY KEY, owner TEXT NOT NULL, until TIMESTAMPTZ NOT NULL);
      CREATE INDEX endpoint_leases_owner ON endpoint_leases (owner);
      -- housekeeping one node does for all: when it last ran
      CREATE TABLE maintenance_runs (name TEXT PRIMARY KEY, last_run TIMESTAMPTZ NOT NULL);
      INSERT INTO maintenance_runs (name, last_run) VALUES ('outbox pruning', 'epoch');
    `,
  },
  {
    version: 8,
    name: "api key deletions pruned",
    sql: `
      -- a deleted id is kept an hour for nodes to read; a node behind what was pruned reads every key again
      ALTER TABLE api_key_deletions ADD COLUMN deleted_at TIMESTAMPTZ NOT NULL DEFAULT now();
      INSERT INTO state_versions (name, version) VALUES ('api_key_deletions_pruned_through', 0);
    `,
  },
  {
    version: 9,
    name: "change feed",
    sql: `
      -- per LEI, field and publication, what a load changed (src/changes/); the id orders the feed and is its cursor
      CREATE TABLE lei_changes (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        lei TEXT NOT NULL,
        record_type TEXT NOT NULL,
        field TEXT NOT NULL,
        value_old TEXT,
        value_new TEXT,
        publication TEXT NOT NULL,
        detected_at TIMESTAMPTZ NOT NULL,
        UNIQUE (publication, lei, field)
      );
      CREATE INDEX lei_changes_lei ON lei_changes (lei, id);
      CREATE INDEX lei_changes_detected ON lei_changes (detected_at);
    `,
  },
  {
    version: 10,
    name: "watchlists",
    sql: `
      -- each tenant's watchlists (src/watchlists/), read where they are stored
      CREATE TABLE watchlists (
        id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, name TEXT NOT NULL, filter JSONB, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
      CREATE INDEX watchlists_tenant ON watchlists (tenant_id, created_at);
      CREATE TABLE watchlist_leis (watchlist_id TEXT NOT NULL, lei TEXT NOT NULL, tenant_id TEXT NOT NULL, PRIMARY KEY (watchlist_id, lei));
      CREATE INDEX watchlist_leis_lei ON watchlist_leis (lei, watchlist_id);
      CREATE INDEX watchlist_leis_tenant ON watchlist_leis (tenant_id);
      -- the change-feed consumer's and the renewal sweep's positions, each with the lease of the node working on it
      CREATE TABLE watch_cursors (name TEXT PRIMARY KEY, position TEXT NOT NULL, owner TEXT, until TIMESTAMPTZ);
      INSERT INTO watch_cursors (name, position) VALUES ('changes', '0'), ('renewal sweep', '');
      -- renewal reminders sent, once each per tenant, LEI, renewal date and threshold
      CREATE TABLE renewal_notices (
        tenant_id TEXT NOT NULL, lei TEXT NOT NULL, renewal_date TEXT NOT NULL, threshold INTEGER NOT NULL, sent_at BIGINT NOT NULL,
        PRIMARY KEY (tenant_id, lei, renewal_date, threshold));
    `,
  },
];
