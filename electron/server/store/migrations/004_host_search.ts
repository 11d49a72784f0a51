/**
 * host_id_qfilter answered in SQL (issue 10): every value of every host identity, but its
 * timestamps and counts, is indexed once by (path, value) so that a query term finds its hosts
 * through indexes instead of a scan of every identity. The vocabulary holds each distinct value
 * of a path once (with its case-folded text, and a trigram index for wildcards inside a value);
 * `host_term` links a value to the hosts that have it. The store fills these tables from
 * `host_id.data` (store/hostSearch.ts); `host_search_state` says which version of that filling
 * the tables hold, so that a database migrated here is indexed on its first open.
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
CREATE INDEX host_term_pk ON host_term(pk);

CREATE TABLE host_search_state (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
`;
