/**
 * Imports as visits (issue 24 §2): every import of host identities (an EVE log, a host file;
 * from the app, the API or the command line) and every pull that changed hosts is a row of
 * `host_visit`, a point the engineer compares. `host_id.learned` is the visit that first brought
 * a host (NULL for hosts from before visits were recorded): the list orders by it through its
 * index, and "new in this import" is that index's range.
 *
 * Per visit, while it is among the last 50 (store/visits.ts prunes the older ones' detail):
 * - `host_visit_seen`: the pks of the hosts it saw, sorted, as delta varints (what "not seen
 *   since" reads), in parts: a pull writes one per page, in that page's transaction;
 * - `host_visit_change`: one row per host whose served identity it updated (those it brought are
 *   told by their `learned`), with the facts that changed (shared/app/hostChanges.ts), NULL when
 *   only times or counts did.
 */
export const hostVisits = `
CREATE TABLE host_visit (
  pk INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL CHECK (kind IN ('eve', 'host_file', 'pull')),
  finished INTEGER NOT NULL,
  user TEXT NOT NULL,
  files TEXT NOT NULL DEFAULT '[]',
  hosts_new INTEGER NOT NULL DEFAULT 0,
  hosts_updated INTEGER NOT NULL DEFAULT 0,
  history_pk INTEGER,
  pruned INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX host_visit_finished ON host_visit(finished, pk);

CREATE TABLE host_visit_seen (
  visit INTEGER NOT NULL,
  part INTEGER NOT NULL,
  pks BLOB NOT NULL,
  PRIMARY KEY (visit, part)
) WITHOUT ROWID;

CREATE TABLE host_visit_change (
  visit INTEGER NOT NULL,
  host INTEGER NOT NULL,
  diff TEXT,
  PRIMARY KEY (visit, host)
) WITHOUT ROWID;

ALTER TABLE host_id ADD COLUMN learned INTEGER;
CREATE INDEX host_id_learned ON host_id(learned, pk);
`;
