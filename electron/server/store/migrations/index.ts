import { initial } from './001_initial';
import { sync } from './002_sync';
import { evidence } from './003_evidence';
import { hostSearch } from './004_host_search';
import { historyChanges } from './005_history_changes';
import { importOwners } from './006_import_owners';
import { importTables } from './007_import_tables';
import { vocabularyUnbound } from './008_vocabulary_unbound';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Numbered schema steps; `PRAGMA user_version` records the last one applied. */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'initial', sql: initial },
  { version: 2, name: 'sync', sql: sync },
  { version: 3, name: 'evidence', sql: evidence },
  { version: 4, name: 'host search', sql: hostSearch },
  { version: 5, name: 'history changes', sql: historyChanges },
  { version: 6, name: 'import owners', sql: importOwners },
  { version: 7, name: 'import tables', sql: importTables },
  { version: 8, name: 'vocabulary unbound', sql: vocabularyUnbound },
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
