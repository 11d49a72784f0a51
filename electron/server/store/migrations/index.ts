import type { Db } from '../database';
import { initial } from './001_initial';
import { sync } from './002_sync';
import { evidence } from './003_evidence';
import { hostSearch } from './004_host_search';
import { historyChanges } from './005_history_changes';
import { importOwners } from './006_import_owners';
import { importTables } from './007_import_tables';
import { vocabularyUnbound } from './008_vocabulary_unbound';
import { evidenceDetails, normaliseCentralParts } from './009_evidence_details';
import { hostVisits } from './010_host_visits';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
  /** A step SQL alone cannot take (JSON rewritten by the API's own rules), run after `sql`, in the same transaction. */
  readonly run?: (db: Db) => void;
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
  { version: 9, name: 'evidence details', sql: evidenceDetails, run: normaliseCentralParts },
  { version: 10, name: 'host visits', sql: hostVisits },
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
