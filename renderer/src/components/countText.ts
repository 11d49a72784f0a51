/**
 * A count as the app writes it, digits grouped by three with commas (as `toLocaleString('en')`
 * does for whole numbers), without ICU: a page's first use of ICU's number formatting costs some
 * 80–120 ms (its data is loaded then), and a list's footer would pay it on the way to its first rows.
 */
export function countText(count: number): string {
  if (!Number.isSafeInteger(count)) return String(count);
  const sign = count < 0 ? '-' : '';
  return sign + String(Math.abs(count)).replace(/\B(?=(\d{3})+$)/g, ',');
}
