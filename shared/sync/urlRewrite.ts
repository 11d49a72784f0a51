/**
 * The proxy's rewriting of absolute URLs (app.md §3.4): every occurrence of the central server's
 * API prefix in a streamed text body becomes the local proxy's, across chunk boundaries, so
 * that `next` and `previous` lead back through Outpost. Text in, text out: no I/O.
 */
export class UrlRewriter {
  private carry = '';

  constructor(
    private readonly from: string,
    private readonly to: string,
  ) {
    if (from.length === 0) throw new Error('nothing to rewrite');
  }

  /** The rewritten text that is certain so far; a raw tail that may start a match is kept. */
  push(text: string): string {
    const joined = this.carry + text;
    // Keep back the longest suffix that is a proper prefix of `from`: it may complete later.
    let keep = 0;
    for (let n = Math.min(this.from.length - 1, joined.length); n > 0; n--) {
      if (joined.endsWith(this.from.slice(0, n))) {
        keep = n;
        break;
      }
    }
    this.carry = joined.slice(joined.length - keep);
    return joined.slice(0, joined.length - keep).split(this.from).join(this.to);
  }

  end(): string {
    const rest = this.carry;
    this.carry = '';
    return rest.split(this.from).join(this.to);
  }
}

/** Rewrite one whole string (a Location header). */
export function rewriteUrl(text: string, from: string, to: string): string {
  return text.startsWith(from) ? to + text.slice(from.length) : text;
}
