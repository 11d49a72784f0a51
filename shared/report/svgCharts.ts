/**
 * The site report's charts as inline SVG (no script, no external resource): horizontal bars for
 * counts by label (services, networks), vertical bars for counts over time (hosts first seen).
 * Every label is escaped for its element; the attributes are this code's own numbers. No I/O.
 */
import { escapeHtml } from './html';
import { shortened } from './readable';

const WIDTH = 640;

/** Labels in a chart are cut shorter than in a table: they share a line with their bar. */
const LABEL_CHARS = 28;

export interface Bar {
  readonly label: string;
  readonly count: number;
}

function number(value: number): string {
  return String(Math.round(value * 10) / 10);
}

/** Horizontal bars, largest first as given; `title` names the chart for a screen reader. */
export function barChart(title: string, bars: readonly Bar[]): string {
  if (bars.length === 0) return '';
  const row = 18;
  const labelWidth = 190;
  const countWidth = 70;
  const height = bars.length * row + 4;
  const max = Math.max(...bars.map((b) => b.count), 1);
  const scale = (WIDTH - labelWidth - countWidth) / max;
  const parts = bars.map((bar, i) => {
    const y = i * row + 2;
    const width = Math.max(bar.count * scale, 1);
    return (
      `<text x="${labelWidth - 6}" y="${number(y + 12)}" text-anchor="end">${escapeHtml(shortened(bar.label, LABEL_CHARS))}</text>` +
      `<rect x="${labelWidth}" y="${y}" width="${number(width)}" height="${row - 5}" class="bar"></rect>` +
      `<text x="${number(labelWidth + width + 4)}" y="${number(y + 12)}">${bar.count}</text>`
    );
  });
  return `<svg class="chart" role="img" aria-label="${escapeHtml(title)}" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}">${parts.join('')}</svg>`;
}

/** Vertical bars over time, oldest first; a label under the first, the last and a few between. */
export function timeChart(title: string, bars: readonly Bar[]): string {
  if (bars.length === 0) return '';
  const height = 160;
  const plot = 120;
  const slot = WIDTH / bars.length;
  const max = Math.max(...bars.map((b) => b.count), 1);
  const every = Math.max(1, Math.ceil(bars.length / 6));
  const parts = bars.map((bar, i) => {
    const h = (bar.count / max) * plot;
    const x = i * slot;
    const rect = `<rect x="${number(x + slot * 0.1)}" y="${number(plot - h + 4)}" width="${number(Math.max(slot * 0.8, 0.5))}" height="${number(h)}" class="bar"><title>${escapeHtml(`${bar.label}: ${bar.count}`)}</title></rect>`;
    const label = i % every === 0 || i === bars.length - 1 ? `<text x="${number(x + slot / 2)}" y="${plot + 20}" text-anchor="middle">${escapeHtml(shortened(bar.label, 12))}</text>` : '';
    return rect + label;
  });
  return `<svg class="chart" role="img" aria-label="${escapeHtml(title)}" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}">${parts.join('')}</svg>`;
}

/** Days (YYYY-MM-DD, ascending) binned into at most `most` bars: by day, else month, else year; empty bins kept. */
export function binnedDays(days: readonly { readonly day: string; readonly count: number }[], most = 60): Bar[] {
  if (days.length === 0) return [];
  const first = days[0]!.day;
  const last = days[days.length - 1]!.day;
  const dayMs = 86_400_000;
  const span = Math.round((Date.parse(`${last}T00:00:00Z`) - Date.parse(`${first}T00:00:00Z`)) / dayMs) + 1;
  const keyLength = span <= most ? 10 : monthsBetween(first, last) <= most ? 7 : 4;
  const counts = new Map<string, number>();
  for (const { day, count } of days) counts.set(day.slice(0, keyLength), (counts.get(day.slice(0, keyLength)) ?? 0) + count);
  const bars: Bar[] = [];
  for (let key = first.slice(0, keyLength); key <= last.slice(0, keyLength); key = nextKey(key)) bars.push({ label: key, count: counts.get(key) ?? 0 });
  if (bars.length <= most) return bars;
  // Years beyond the bars (a log with a clock gone wrong): the earliest summed into one bar.
  const earlier = bars.slice(0, bars.length - most + 1);
  return [{ label: `≤ ${earlier[earlier.length - 1]!.label}`, count: earlier.reduce((sum, bar) => sum + bar.count, 0) }, ...bars.slice(bars.length - most + 1)];
}

function monthsBetween(first: string, last: string): number {
  return (Number(last.slice(0, 4)) - Number(first.slice(0, 4))) * 12 + Number(last.slice(5, 7)) - Number(first.slice(5, 7)) + 1;
}

/** The bin after `key` (a day, a month or a year). */
function nextKey(key: string): string {
  if (key.length === 4) return String(Number(key) + 1).padStart(4, '0');
  if (key.length === 7) {
    const [y, m] = [Number(key.slice(0, 4)), Number(key.slice(5, 7))];
    return m === 12 ? `${String(y + 1).padStart(4, '0')}-01` : `${key.slice(0, 4)}-${String(m + 1).padStart(2, '0')}`;
  }
  return new Date(Date.parse(`${key}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}
