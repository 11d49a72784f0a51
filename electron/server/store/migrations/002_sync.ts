/**
 * Working against a central server (app.md §3): the remote state of each mirrored object (its
 * base), the outbox of local changes not yet pushed, the central server's own history, and the
 * binding's state.
 */
export const sync = `
CREATE TABLE sync_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;

-- The object as the central server last showed it (its API JSON).
CREATE TABLE sync_base (
  resource TEXT NOT NULL,
  pk INTEGER NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (resource, pk)
) WITHOUT ROWID;

-- Local changes, in the order they were made. 'sending' marks a create whose request may have
-- left: its outcome is looked up before anything is sent again.
CREATE TABLE outbox (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  op TEXT NOT NULL CHECK (op IN ('create', 'update', 'delete')),
  resource TEXT NOT NULL,
  pk INTEGER NOT NULL,
  fields TEXT NOT NULL DEFAULT '{}',
  base TEXT NOT NULL DEFAULT '{}',
  comment TEXT,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sending', 'parked', 'conflict')),
  message TEXT,
  theirs TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL
);
CREATE INDEX outbox_object ON outbox(resource, pk);

-- The central server's history, mirrored for reading offline.
CREATE TABLE remote_user_action (
  pk INTEGER PRIMARY KEY,
  date TEXT NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX remote_user_action_date ON remote_user_action(date);
`;
