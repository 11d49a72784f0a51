/**
 * The probe list's marker of probes that override their template (the appliances view it pages
 * does not carry `overriden_fields`): each vendor row in view reads its probe, a few at a time,
 * after a short pause so that fast scrolling reads nothing, and remembers the answer for as long
 * as the row's `updated` stays the same (any write to the probe changes it).
 */
import { useEffect, useState } from 'react';
import { INHERITABLE, vendorProbe, type JsonObject } from '../../../shared/resources';
import { api } from '../api/client';
import { isAbortError } from '../data/errors';
import { PARAMETER_LABELS, VENDOR_PROBES_PATH } from './templatesFields';

/** What the marker shows of one probe. */
interface ProbeOverrides {
  readonly template: boolean;
  readonly overrides: readonly string[];
}

/** A pause long enough that typing a search (a key every ~120 ms) or scrolling reads nothing. */
const SETTLE_MS = 400;
const AT_ONCE = 4;
const known = new Map<string, ProbeOverrides>();
let running = 0;
const waiting: (() => void)[] = [];

async function limited<T>(task: () => Promise<T>): Promise<T> {
  if (running >= AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await task();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

function overridesOf(probe: JsonObject): ProbeOverrides {
  return {
    template: typeof probe.parent_tmpl === 'number',
    overrides: Array.isArray(probe.overriden_fields) ? probe.overriden_fields.map(String) : [],
  };
}

function useProbeOverrides(row: JsonObject): ProbeOverrides | undefined {
  const key = row.type === 'vendor' ? `${String(row.pk)}:${String(row.updated)}` : undefined;
  const [shown, setShown] = useState<ProbeOverrides | undefined>(key ? known.get(key) : undefined);
  useEffect(() => {
    if (!key) return setShown(undefined);
    const cached = known.get(key);
    setShown(cached);
    if (cached) return;
    const controller = new AbortController();
    const timer = window.setTimeout(() => {
      limited(async () => {
        if (controller.signal.aborted) return;
        const probe = await api.get(`${VENDOR_PROBES_PATH}${String(row.pk)}/`, undefined, controller.signal);
        const value = overridesOf(probe);
        known.set(key, value);
        setShown(value);
      }).catch((error: unknown) => {
        // A probe deleted meanwhile, or a read cut short: the row shows no marker.
        if (!isAbortError(error)) setShown(undefined);
      });
    }, SETTLE_MS);
    return () => {
      window.clearTimeout(timer);
      controller.abort();
    };
  }, [key, row.pk]);
  return shown;
}

const labelOf = (name: string) => PARAMETER_LABELS[name] ?? vendorProbe.fields[name]?.label ?? name;

/** "✎ 2" after the name of a vendor probe that sets two of its template's values itself (its title names them). */
export function OverrideMarker({ row }: { row: JsonObject }) {
  const value = useProbeOverrides(row);
  if (!value || !value.template || value.overrides.length === 0) return null;
  // In the form's order, whatever order the probe's list has.
  const names = INHERITABLE.filter((name) => value.overrides.includes(name)).map(labelOf).join(', ');
  return (
    <span className="badge overridden override-marker" title={`Overrides its template's ${names}`} aria-label={`Overrides ${names}`}>
      ✎ {INHERITABLE.filter((name) => value.overrides.includes(name)).length}
    </span>
  );
}
