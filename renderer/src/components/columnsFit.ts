/**
 * Which columns of a list fit its width (no DOM): each column's grid track has a least width;
 * when they do not all fit, the columns of lowest priority (highest `priority` number) are left
 * out first, and columns with no priority always stay (the list then scrolls sideways).
 */

export interface FitColumn {
  readonly key: string;
  /** CSS grid track: `8rem`, `minmax(8rem, 1fr)`, `2fr`. */
  readonly width: string;
  /** Left out first when the width is short: 3 before 2 before 1; none: always shown. */
  readonly priority?: number;
}

/** What a bare `fr` track needs at least. */
const BARE_FR_REM = 4;

/** The least width of a grid track in pixels (`minmax(8rem, 1fr)` → 8rem). */
export function trackMinPx(track: string, remPx: number): number {
  const min = /^minmax\(\s*([^,]+),/.exec(track.trim())?.[1] ?? track.trim();
  const length = /^(\d+(?:\.\d+)?)(rem|px|fr)$/.exec(min.trim());
  if (!length) return BARE_FR_REM * remPx;
  const value = Number(length[1]);
  if (length[2] === 'rem') return value * remPx;
  if (length[2] === 'px') return value;
  return BARE_FR_REM * remPx;
}

/** The columns shown in `availablePx`, in their order, and those left out. */
export function fitColumns<C extends FitColumn>(columns: readonly C[], availablePx: number, remPx = 16): { shown: C[]; hidden: C[] } {
  const need = (list: readonly C[]) => list.reduce((sum, c) => sum + trackMinPx(c.width, remPx), 0);
  let shown = [...columns];
  const droppable = columns.filter((c) => c.priority !== undefined).sort((a, b) => (b.priority ?? 0) - (a.priority ?? 0));
  for (const column of droppable) {
    if (need(shown) <= availablePx || availablePx <= 0) break;
    shown = shown.filter((c) => c !== column);
  }
  return { shown, hidden: columns.filter((c) => !shown.includes(c)) };
}
