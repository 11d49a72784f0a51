/**
 * The facets beside the survey list (the `hostFacets` answer): each value with its count of
 * hosts under the filter; a click adds its filter, a second click takes it off. The filters on
 * show above the list as chips, each with its `host_id_qfilter` text: the engineer learns the
 * query language by clicking.
 */
import type { Facet, FacetBucket, HostFacetsAnswer } from '../../../shared/app/hostSurvey';
import { boundedText } from '../components/bounded';
import { countText } from '../components/countText';

interface FacetsProps {
  readonly answer: HostFacetsAnswer | undefined;
  readonly loading: boolean;
  readonly error: string | undefined;
  readonly chips: readonly string[];
  readonly onToggle: (qfilter: string) => void;
}

function FacetSection({ facet, chips, onToggle }: { facet: Facet; chips: readonly string[]; onToggle: (qfilter: string) => void }) {
  const id = `facet-${facet.id}`;
  return (
    <section className="facet" aria-labelledby={id}>
      <h3 id={id}>{facet.label}</h3>
      {facet.buckets.length === 0 ? (
        <p className="muted">none</p>
      ) : (
        <ul className="plain">
          {facet.buckets.map((bucket) => {
            const on = chips.includes(bucket.qfilter);
            return (
              <li key={bucket.qfilter}>
                <button
                  type="button"
                  className={`facet-value${on ? ' on' : ''}`}
                  aria-pressed={on}
                  title={`${boundedText(bucket.label)}: ${countText(bucket.count)} hosts — ${boundedText(bucket.qfilter)}`}
                  onClick={() => onToggle(bucket.qfilter)}
                >
                  <span className="facet-label">{boundedText(bucket.label, 80)}</span>
                  <span className="facet-count">{countText(bucket.count)}</span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {facet.more > 0 && <p className="muted facet-more">and {countText(facet.more)} more values (the query box completes them)</p>}
    </section>
  );
}

export function Facets({ answer, loading, error, chips, onToggle }: FacetsProps) {
  return (
    <aside className="facets" aria-label="Facets" aria-busy={loading}>
      <h2 className="facets-title">
        Facets{answer ? <span className="muted"> · {countText(answer.count)} hosts</span> : null}
      </h2>
      {error && (
        <p className="notice error" role="alert">
          {boundedText(error)}
        </p>
      )}
      {!answer && !error && <p className="loading">Counting…</p>}
      <div className="facet-sections">
        {answer?.facets.map((facet) => (
          <FacetSection key={facet.id} facet={facet} chips={chips} onToggle={onToggle} />
        ))}
      </div>
    </aside>
  );
}

/** The bucket of a chip's filter among the facets, for its words. */
function bucketOf(answer: HostFacetsAnswer | undefined, qfilter: string): { facet: Facet; bucket: FacetBucket } | undefined {
  for (const facet of answer?.facets ?? []) {
    const bucket = facet.buckets.find((b) => b.qfilter === qfilter);
    if (bucket) return { facet, bucket };
  }
  return undefined;
}

export interface ExtraChip {
  readonly key: string;
  readonly label: string;
  readonly code: string;
  readonly onRemove: () => void;
}

/** The filters on, as chips: words and the query text each stands for, each removable. */
export function Chips({ answer, chips, extra, onToggle }: { answer: HostFacetsAnswer | undefined; chips: readonly string[]; extra: readonly ExtraChip[]; onToggle: (qfilter: string) => void }) {
  if (chips.length === 0 && extra.length === 0) return null;
  return (
    <ul className="chips plain" aria-label="Filters on">
      {chips.map((qfilter) => {
        const found = bucketOf(answer, qfilter);
        const label = found ? `${found.facet.label}: ${found.bucket.label}` : 'Filter';
        return <Chip key={qfilter} label={label} code={qfilter} onRemove={() => onToggle(qfilter)} />;
      })}
      {extra.map((chip) => (
        <Chip key={chip.key} label={chip.label} code={chip.code} onRemove={chip.onRemove} />
      ))}
    </ul>
  );
}

function Chip({ label, code, onRemove }: { label: string; code: string; onRemove: () => void }) {
  return (
    <li className="chip">
      <span className="chip-label">{boundedText(label, 80)}</span>
      <code className="chip-code" title="The same filter in the query language">
        {boundedText(code)}
      </code>
      <button type="button" className="chip-remove" aria-label={`Remove filter ${boundedText(label, 80)}`} onClick={onRemove}>
        ×
      </button>
    </li>
  );
}
