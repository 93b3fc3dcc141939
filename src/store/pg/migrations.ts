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
      -- one row: bumped by every write of api_keys in the same transaction
      CREATE TABLE api_key_version (one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one), version BIGINT NOT NULL);
      INSERT INTO api_key_version (version) VALUES (0);
      -- secrets every node must share: the generated bootstrap key
      CREATE TABLE shared_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL);
    `,
  },
];
