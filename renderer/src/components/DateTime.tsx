/** A timestamp of the API in the user's form, the exact UTC value on hover (components/dateFormat.ts). */
import { dateView } from './dateFormat';

/** The tooltip of a timestamp: the user's form and the exact UTC value ('' for no value). */
export function dateTitle(value: string | null | undefined): string {
  if (!value) return '';
  const view = dateView(value);
  return view ? `${view.text} — ${view.exact}` : value;
}

export function DateTime({ value, dateOnly = false, empty = '—' }: { value: string | null | undefined; dateOnly?: boolean; empty?: string }) {
  if (!value) return <span className="muted">{empty}</span>;
  const view = dateView(value, { dateOnly });
  if (!view) return <>{value}</>;
  return (
    <time dateTime={view.iso} title={view.exact}>
      {view.text}
    </time>
  );
}
