/**
 * host_id_qfilter answered in SQL (issue 10): every value of every host identity, but its
 * timestamps and counts, is indexed once by (path, value) so that a query term finds its hosts
 * through indexes instead of a scan of every identity. The vocabulary holds each distinct value
 * of a path once (with its case-folded text, and a trigram index for wildcards inside a value);
 * `host_term` links a value to the hosts that have it. The store fills these tables from
 * `host_id.data` (store/hostSearch.ts) after each write, in the background; `host_search_state`
 * says which version of that filling the tables hold, so that a database migrated here is indexed
 * again.
 */
export const hostSearch = `
-- hits compared, ordered by, and every host's pk read without reading the rows.
CREATE INDEX host_id_hits ON host_id(hits, pk);

CREATE TABLE host_path (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL,
  -- 's' text, 'n' number, 'b' boolean: what a value of this path is; 'x' a path not indexed
  -- (timestamps and counts), kept so that a query knows which terms the index cannot answer.
  kind TEXT NOT NULL,
  UNIQUE (path, kind)
);

CREATE TABLE host_vocab (
  id INTEGER PRIMARY KEY,
  path_id INTEGER NOT NULL REFERENCES host_path(id),
  text TEXT NOT NULL,
  fold TEXT NOT NULL,
  UNIQUE (path_id, text)
);
CREATE INDEX host_vocab_fold ON host_vocab(fold);

CREATE VIRTUAL TABLE host_vocab_trigram USING fts5(fold, content='host_vocab', content_rowid='id', tokenize='trigram');

CREATE TABLE host_term (
  value_id INTEGER NOT NULL,
  pk INTEGER NOT NULL,
  PRIMARY KEY (value_id, pk)
) WITHOUT ROWID;
-- The value ids indexed for each host (a JSON list): what to take out when it changes.
CREATE TABLE host_term_set (
  pk INTEGER PRIMARY KEY,
  ids TEXT NOT NULL
);

-- Hosts written since they were last indexed: the index catches up with them in the background,
-- in small transactions, and a query reads them itself meanwhile (store/hostSearch.ts).
CREATE TABLE host_search_dirty (
  pk INTEGER PRIMARY KEY
);

CREATE TABLE host_search_state (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
`;
