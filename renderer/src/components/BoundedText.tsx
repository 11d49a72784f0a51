/**
 * A value from data as the page shows it (components/bounded.ts): whole when it has at most 256
 * characters; else its first 256, the marker, "Show all" and "Copy". The page holds the rest only
 * once the engineer asks for it: shown whole, in pieces with a break opportunity between them, in
 * a box of its own that scrolls; copied, from memory, never from the page.
 */
import { Fragment, useEffect, useState } from 'react';
import { bounded, CUT_MARKER, pieces } from './bounded';
import { copyText } from './clipboard';
import { countText } from './countText';

interface Props {
  readonly value: string;
  /** What the value is ("TLS subject"): names its buttons for a screen reader. */
  readonly label?: string | undefined;
}

export function BoundedText({ value, label }: Props) {
  const { shown, cut, length } = bounded(value);
  if (!cut) return <>{value}</>;
  return <CutText value={value} shown={shown} length={length} label={label} />;
}

function CutText({ value, shown, length, label }: { value: string; shown: string; length: number; label: string | undefined }) {
  const [whole, setWhole] = useState(false);
  const [copied, setCopied] = useState<'copied' | 'refused' | undefined>();
  useEffect(() => {
    if (copied === undefined) return;
    const timer = window.setTimeout(() => setCopied(undefined), 4000);
    return () => window.clearTimeout(timer);
  }, [copied]);
  const what = label ?? 'the value';
  const buttons = (
    <span className="bounded-actions">
      <button type="button" className="link" aria-expanded={whole} aria-label={whole ? `Show less of ${what}` : `Show all ${countText(length)} characters of ${what}`} onClick={() => setWhole((w) => !w)}>
        {whole ? 'Show less' : `Show all ${countText(length)} characters`}
      </button>
      <button
        type="button"
        className="link"
        aria-label={`Copy ${what}`}
        onClick={() => {
          copyText(value).then(
            () => setCopied('copied'),
            () => setCopied('refused'),
          );
        }}
      >
        Copy
      </button>
      <span role="status" className="bounded-note">
        {copied === 'copied' ? 'Copied.' : copied === 'refused' ? 'The clipboard refused it.' : ''}
      </span>
    </span>
  );
  if (!whole) {
    return (
      <span className="bounded">
        {shown}
        <span className="bounded-marker">{CUT_MARKER}</span> {buttons}
      </span>
    );
  }
  return (
    <span className="bounded bounded-open">
      {buttons}
      {/* Scrolls by itself: focusable, so that the keyboard scrolls it too. */}
      <span className="bounded-whole" tabIndex={0} role="group" aria-label={label ? `${label}, whole` : 'The whole value'}>
        {pieces(value).map((piece, i) => (
          <Fragment key={i}>
            {piece}
            <wbr />
          </Fragment>
        ))}
      </span>
    </span>
  );
}
