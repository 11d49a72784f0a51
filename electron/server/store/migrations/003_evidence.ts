/**
 * Host identity from the site's own sensor (issue 10): what the local EVE imports saw is kept
 * apart from what the central server (or an imported host file) gives, and both are read
 * together. `host_id` keeps serving the merged identity; `central` and `central_hits` keep the
 * central server's part. An import writes its evidence to staging tables first and moves it in
 * one transaction when it is complete, so that nothing of a cancelled or failed import stays.
 */
export const evidence = `
ALTER TABLE host_id ADD COLUMN central TEXT;
ALTER TABLE host_id ADD COLUMN central_hits INTEGER;
UPDATE host_id SET central = data, central_hits = hits;

-- One value the local imports saw for an address (a hostname, a service…), with its times.
CREATE TABLE host_evidence (
  ip TEXT NOT NULL,
  list TEXT NOT NULL,
  key TEXT NOT NULL,
  item TEXT NOT NULL,
  first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL,
  PRIMARY KEY (ip, list, key)
) WITHOUT ROWID;

-- Per address: the alerts the local imports saw it in, and its own first and last time.
CREATE TABLE host_local (
  ip TEXT PRIMARY KEY,
  hits INTEGER NOT NULL DEFAULT 0,
  first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL
) WITHOUT ROWID;

-- The EVE files read so far: found again by their first bytes, read up to 'bytes'.
CREATE TABLE eve_file (
  pk INTEGER PRIMARY KEY AUTOINCREMENT,
  head TEXT NOT NULL,
  path TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  lines INTEGER NOT NULL,
  tail TEXT NOT NULL,
  updated INTEGER NOT NULL
);
CREATE INDEX eve_file_head ON eve_file(head);

-- An import under way, and what it has gathered so far.
CREATE TABLE eve_import (
  pk INTEGER PRIMARY KEY AUTOINCREMENT,
  started INTEGER NOT NULL
);
CREATE TABLE eve_staged_value (
  import INTEGER NOT NULL REFERENCES eve_import(pk) ON DELETE CASCADE,
  ip TEXT NOT NULL,
  list TEXT NOT NULL,
  key TEXT NOT NULL,
  item TEXT NOT NULL,
  first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL,
  PRIMARY KEY (import, ip, list, key)
) WITHOUT ROWID;
CREATE TABLE eve_staged_host (
  import INTEGER NOT NULL REFERENCES eve_import(pk) ON DELETE CASCADE,
  ip TEXT NOT NULL,
  hits INTEGER NOT NULL,
  first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL,
  PRIMARY KEY (import, ip)
) WITHOUT ROWID;

-- Settings of the workspace (the home networks).
CREATE TABLE workspace_setting (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
`;
