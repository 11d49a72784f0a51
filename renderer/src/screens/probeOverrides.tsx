/**
 * The probe list's marker of probes that override their template: "✎ 2" after the name of a
 * vendor probe that sets two of its template's values itself (its title names them). What it
 * shows is read by probeOverridesStore.ts once the list has settled.
 */
import { useCallback, useEffect, useSyncExternalStore } from 'react';
import { INHERITABLE, vendorProbe, type JsonObject } from '../../../shared/resources';
import { knownOverrides, overridesKey, subscribeOverrides, wantOverrides, type ProbeOverrides } from './probeOverridesStore';
import { PARAMETER_LABELS } from './templatesFields';

function useProbeOverrides(row: JsonObject): ProbeOverrides | undefined {
  const key = overridesKey(row);
  const pk = String(row.pk);
  // Of the same identity while the key stays: a new one would subscribe again at each render.
  const subscribe = useCallback((listener: () => void) => (key ? subscribeOverrides(key, listener) : () => {}), [key]);
  const shown = useSyncExternalStore(subscribe, () => (key ? knownOverrides(key) : undefined));
  useEffect(() => (key ? wantOverrides(key, pk) : undefined), [key, pk]);
  return shown;
}

const labelOf = (name: string) => PARAMETER_LABELS[name] ?? vendorProbe.fields[name]?.label ?? name;

export function OverrideMarker({ row }: { row: JsonObject }) {
  const value = useProbeOverrides(row);
  if (!value || !value.template || value.overrides.length === 0) return null;
  // In the form's order, whatever order the probe's list has.
  const overridden = INHERITABLE.filter((name) => value.overrides.includes(name));
  const names = overridden.map(labelOf).join(', ');
  return (
    <span className="badge overridden override-marker" title={`Overrides its template's ${names}`} aria-label={`Overrides ${names}`}>
      ✎ {overridden.length}
    </span>
  );
}
