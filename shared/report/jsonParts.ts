/**
 * The host list as JSON in the API's own shape (api.md §7: the array `POST
 * /rest/appliances/host_id/import/` and `outpost import-hosts` take), split into parts each
 * within the host import's body limit, so that every part re-imports into Outpost or the central
 * server (docs/report.md "JSON"). A part is `[`, one entry a line, `]`:
 *
 *     [\n<entry>,\n<entry>\n]\n
 *
 * so its size is the entries' UTF-8 bytes + 2 per entry + 3 (an empty part is `[]\n`). No I/O.
 */

/** The bytes of a part holding entries of these sizes. */
export function partBytes(entryBytes: number, entries: number): number {
  return entries === 0 ? 3 : entryBytes + 2 * entries + 3;
}

export const PART_OPEN = '[\n';
export const PART_SEPARATOR = ',\n';
export const PART_CLOSE = '\n]\n';

/**
 * Splits entries, in order, into parts of at most `limit` bytes: an entry goes to the current part
 * if the part still fits with it, else it starts the next. An entry larger than a part alone gets a
 * part of its own (`oversize`: the import would refuse it; say so rather than drop the host).
 */
export class PartPlanner {
  private entries = 0;
  private bytes = 0;
  private index = 0;

  constructor(private readonly limit: number) {}

  /** Where an entry of `size` UTF-8 bytes goes: its part's index (from 0) and whether it starts it. */
  place(size: number): { readonly part: number; readonly starts: boolean } {
    if (this.entries > 0 && partBytes(this.bytes + size, this.entries + 1) > this.limit) {
      this.index++;
      this.entries = 0;
      this.bytes = 0;
    }
    const starts = this.entries === 0;
    this.entries++;
    this.bytes += size;
    return { part: this.index, starts };
  }

  /** The current part's size so far, and its entries. */
  current(): { readonly part: number; readonly entries: number; readonly bytes: number } {
    return { part: this.index, entries: this.entries, bytes: partBytes(this.bytes, this.entries) };
  }
}

/** UTF-8 bytes of a text, counted without encoding it. */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2; // a pair: 4 bytes for 2 code units
      i++;
    } else bytes += 2;
  }
  return bytes;
}

/** One part of a JSON export: the hosts between two pks (in pk order) and its size when listed. */
export interface HostJsonPart {
  /** From 1. */
  readonly part: number;
  readonly hosts: number;
  readonly bytes: number;
  /** The first and last pk it spans (a part is asked for by them: the same hosts whatever was added since). */
  readonly from: number;
  readonly to: number;
  /** One host larger than a part may be alone: its part exceeds the limit (the import would refuse it). */
  readonly oversize: boolean;
  /** Its route with the query that gives it (`/app/hosts/export/json/part?…`). */
  readonly url: string;
}

/** `GET /app/hosts/export/json`: the parts of the export of the list under a filter. */
export interface HostJsonParts {
  /** Hosts in all parts. */
  readonly count: number;
  /** Bytes a part may have at most. */
  readonly limit: number;
  readonly parts: readonly HostJsonPart[];
}
