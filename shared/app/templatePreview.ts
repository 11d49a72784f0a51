/**
 * Saving a template, previewed (issue: local preview): which local probes and templates would take
 * another effective value, field by field, before anything is written. Answered by
 * `POST /app/templates/:pk/preview` with the fields the save would write; computed by the same
 * inheritance rules as the write (api.md §4), nothing stored.
 */
import type { JsonValue } from '../resources';

export interface EffectiveChange {
  readonly field: string;
  readonly before: JsonValue;
  readonly after: JsonValue;
}

export interface PreviewedObject {
  readonly resource: 'vendor_probe' | 'vendor_probe_template';
  readonly pk: number;
  readonly name: string;
  readonly changes: readonly EffectiveChange[];
}

export interface TemplatePreview {
  /** The template's own fields that change. */
  readonly own: readonly EffectiveChange[];
  /** The local probes and templates whose effective values change, by name. */
  readonly objects: readonly PreviewedObject[];
  /** The save would be refused (the API's field errors), nothing to preview. */
  readonly errors: Readonly<Record<string, JsonValue>> | null;
}
