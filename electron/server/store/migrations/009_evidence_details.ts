/**
 * EVE identities that hold on any real log (issue 22):
 * - a service's details (`http`, `ssh`, `tls`) become evidence of their own, under the service's
 *   key, so that each keeps the value of the latest event that carried it (a flow or a resumed
 *   TLS session no longer erases it). A detail stored before takes its service's last seen as its
 *   own: the old rule kept the details of the service's latest event.
 * - the protocol of a service is lower case (`tcp`), as the central server writes it.
 * - each value and address records the import that brought it (`import_pk`; 0 for those from
 *   before this step).
 * - `host_identity_pending`: addresses whose served identity is to be written again from their
 *   evidence (an import writes its evidence, then their identities; a crash between the two, or
 *   this step, leaves them here for the next to write). Every address with local evidence is.
 * - a host's central part (a pull, a host file) is kept as the central server writes it: times
 *   in UTC, the protocol in lower case (`normalHostId`); the parts stored before are rewritten so
 *   (a pull of an unchanged host then still writes nothing).
 * - an EVE file read is found again by windows spread over it (`samples`), not only its first
 *   line and last 4 KiB; an import is kept once finished, and says which files it claims while
 *   it runs (`heads`), so that two imports of one log never read the same lines.
 */
import { normalHostId } from '../../../../shared/api/hostIdentity';
import type { JsonObject } from '../../../../shared/resources/fields';
import type { Db } from '../database';

const merge = (table: string) => `ON CONFLICT DO UPDATE SET
  item = CASE WHEN excluded.last_seen > ${table}.last_seen OR (excluded.last_seen = ${table}.last_seen AND excluded.item > ${table}.item) THEN excluded.item ELSE ${table}.item END,
  first_seen = min(${table}.first_seen, excluded.first_seen),
  last_seen = max(${table}.last_seen, excluded.last_seen)`;

const serviceKey = `lower(json_extract(e.item, '$.proto')) || '/' || json_extract(e.item, '$.port') || '/' || coalesce(json_extract(e.item, '$.app_proto'), 'unknown')`;

export const evidenceDetails = `
CREATE TABLE host_evidence_009 (
  ip TEXT NOT NULL,
  list TEXT NOT NULL,
  key TEXT NOT NULL,
  item TEXT NOT NULL,
  first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL,
  import_pk INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (ip, list, key)
) WITHOUT ROWID;
INSERT INTO host_evidence_009 (ip, list, key, item, first_seen, last_seen)
  SELECT ip, list, key, item, first_seen, last_seen FROM host_evidence WHERE list <> 'services';
INSERT INTO host_evidence_009 (ip, list, key, item, first_seen, last_seen)
  SELECT e.ip, 'services', ${serviceKey},
    json_object('proto', lower(json_extract(e.item, '$.proto')), 'port', json_extract(e.item, '$.port'), 'app_proto', coalesce(json_extract(e.item, '$.app_proto'), 'unknown')),
    e.first_seen, e.last_seen
  FROM host_evidence e WHERE e.list = 'services' AND json_valid(e.item)
  ${merge('host_evidence_009')};
INSERT INTO host_evidence_009 (ip, list, key, item, first_seen, last_seen)
  SELECT e.ip, 'services.' || d.key, ${serviceKey}, d.value, e.first_seen, e.last_seen
  FROM host_evidence e, json_each(e.item) d
  WHERE e.list = 'services' AND json_valid(e.item) AND d.key IN ('http', 'ssh', 'tls') AND d.type = 'object'
  ${merge('host_evidence_009')};
DROP TABLE host_evidence;
ALTER TABLE host_evidence_009 RENAME TO host_evidence;

ALTER TABLE host_local ADD COLUMN import_pk INTEGER NOT NULL DEFAULT 0;

CREATE TABLE host_identity_pending (ip TEXT PRIMARY KEY) WITHOUT ROWID;
INSERT INTO host_identity_pending SELECT ip FROM host_local;

ALTER TABLE eve_file ADD COLUMN samples TEXT;
ALTER TABLE eve_import ADD COLUMN finished INTEGER;
ALTER TABLE eve_import ADD COLUMN heads TEXT NOT NULL DEFAULT '[]';
`;

/** A stored host_id that may not be in the central server's form: a protocol with a capital, a time not in UTC. */
const MAYBE_OTHER_FORM = /"proto":"[^"]*[A-Z]|"\d{4}-\d\d-\d\dT[^"]*(?<!\+00:00|\+0000)"/;
const ROWS_AT_ONCE = 1000;

/** Rewrite every stored central part in the central server's form; an address with local evidence waits for its identity again. */
export function normaliseCentralParts(db: Db): void {
  const rows = db.prepare('SELECT pk, ip, data, central FROM host_id WHERE central IS NOT NULL AND pk > ? ORDER BY pk LIMIT ?');
  const setData = db.prepare('UPDATE host_id SET data = ? WHERE pk = ?');
  const setCentral = db.prepare('UPDATE host_id SET central = ? WHERE pk = ?');
  const dirty = db.prepare('INSERT OR IGNORE INTO host_search_dirty (pk) VALUES (?)');
  const pending = db.prepare('INSERT OR IGNORE INTO host_identity_pending (ip) VALUES (?)');
  for (let after = 0; ; ) {
    const batch = rows.all(after, ROWS_AT_ONCE) as { pk: number; ip: string; data: string; central: string }[];
    if (batch.length === 0) return;
    for (const { pk, ip, data, central } of batch) {
      const text = central === '' ? data : central;
      if (!MAYBE_OTHER_FORM.test(text)) continue;
      const normal = JSON.stringify(normalHostId(JSON.parse(text) as JsonObject));
      if (normal === text) continue;
      if (central === '') {
        setData.run(normal, pk);
        dirty.run(pk);
      } else {
        setCentral.run(normal, pk);
        pending.run(ip);
      }
    }
    after = batch[batch.length - 1]!.pk;
  }
}
