/**
 * What an EVE import tells when it ends (`outpost import-eve` prints it, the app's upload answers
 * it) and while it runs: plain data, the same for the command, the server and the page.
 */
import type { DropReason, SkipReason } from './event';

/** How many of a reason, and where the first few were (`file:line`). */
export interface CountedLines {
  readonly count: number;
  readonly first: readonly string[];
}

export interface EveFileSummary {
  readonly path: string;
  /** The first line read this time (those before were imported before). */
  readonly fromLine: number;
  /** Lines read this time. */
  readonly lines: number;
  /** Lines an earlier import (or one beside this one) had read already. */
  readonly alreadyImported: number;
}

/** A file of a folder that was not read, and why. */
export interface IgnoredFile {
  readonly path: string;
  readonly reason: string;
}

export interface EveSummary {
  readonly files: readonly EveFileSummary[];
  readonly ignored: readonly IgnoredFile[];
  readonly linesRead: number;
  readonly eventsUsed: number;
  readonly eventsOther: number;
  /** Lines not read as events, by reason. */
  readonly skipped: Readonly<Partial<Record<SkipReason, CountedLines>>>;
  /** Values events gave that were not stored, by reason (an address that is none, or no host's). */
  readonly dropped: Readonly<Partial<Record<DropReason, CountedLines>>>;
  /** Hosts the import made, and hosts whose identity it changed. */
  readonly hostsCreated: number;
  readonly hostsUpdated: number;
}

export interface EveProgress {
  readonly file: string;
  /** Bytes of the sources read so far (compressed bytes for gzip). */
  readonly bytesRead: number;
  readonly bytesTotal: number;
  readonly events: number;
  /** Addresses with evidence so far. */
  readonly hosts: number;
  /** Set while an upload is received, before it is read (`bytesRead`: bytes received). */
  readonly receiving?: true;
  /** Set while another import of the same log runs: the import waits for it to end, then reads what it did not. */
  readonly waitingFor?: string;
}
