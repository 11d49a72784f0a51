/**
 * The search vocabulary (migration 004) without its foreign key to `host_path`. SQLite empties a
 * table that has a foreign key row by row, and the vocabulary is emptied whenever the index is
 * made again (a new version of it, store/hostSearch.ts): for a million hosts' values that held
 * the workspace's opening for 2.4 s, where a table without one has its pages freed at once
 * (50 ms). The store alone writes both tables, and keeps them together.
 *
 * Dropping the table is quick too (a table that only refers to another is not emptied first).
 * The index is made again from the identities, in the background, as for any new version of it:
 * its stored version goes with the values.
 */
export const vocabularyUnbound = `
DROP TABLE host_vocab;
CREATE TABLE host_vocab (
  id INTEGER PRIMARY KEY,
  path_id INTEGER NOT NULL,
  text TEXT NOT NULL,
  fold TEXT NOT NULL,
  UNIQUE (path_id, text)
);
CREATE INDEX host_vocab_fold ON host_vocab(fold);
DELETE FROM host_search_state WHERE key = 'version';
`;
