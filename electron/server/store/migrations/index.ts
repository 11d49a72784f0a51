import { initial } from './001_initial';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Numbered schema steps; `PRAGMA user_version` records the last one applied. */
export const MIGRATIONS: readonly Migration[] = [{ version: 1, name: 'initial', sql: initial }];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
