/**
 * What a template save's preview says (shared/app/templatePreview.ts), field by field: "Saving
 * changes Capture threads on 3 probes: a: 2 → 4, …", each list bounded with "and N more". Pure:
 * tested directly.
 */
import type { TemplatePreview } from '../../../shared/app/templatePreview';
import type { JsonValue } from '../../../shared/resources';
import { countText } from '../components/countText';
import { counted } from './templateUsage';

/** Objects named per field before "and N more". */
export const PREVIEW_LISTED = 8;

export interface PreviewLine {
  readonly name: string;
  readonly before: string;
  readonly after: string;
}

export interface PreviewField {
  readonly field: string;
  /** "Saving changes Capture threads on 3 probes and 1 template" */
  readonly sentence: string;
  readonly lines: readonly PreviewLine[];
  /** "and 29 more", or null when every object is listed. */
  readonly more: string | null;
}

/** A value as one line of text: an item list as "eth0 (active), eth1 (off)", text as it is, nothing as "(empty)". */
export function valueText(value: JsonValue): string {
  if (value === null || value === '') return '(empty)';
  if (Array.isArray(value)) {
    if (value.length === 0) return '(none)';
    return value
      .map((item) => {
        if (typeof item !== 'object' || item === null || Array.isArray(item)) return JSON.stringify(item);
        const flag = Object.entries(item).find(([key]) => key !== 'pk' && key !== 'name')?.[1];
        return `${String(item.name)}${flag === false ? ' (off)' : ''}`;
      })
      .join(', ');
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function kinds(probes: number, templates: number): string {
  return [...(probes > 0 ? [counted(probes, 'probe', 'probes')] : []), ...(templates > 0 ? [counted(templates, 'template', 'templates')] : [])].join(' and ');
}

/** The preview's changed fields, in the order of the template's own changes, each with what it reaches. */
export function previewFields(preview: TemplatePreview, labelOf: (field: string) => string): PreviewField[] {
  const order = [...preview.own.map((c) => c.field)];
  for (const object of preview.objects) for (const change of object.changes) if (!order.includes(change.field)) order.push(change.field);
  return order.flatMap((field) => {
    const reached = preview.objects.flatMap((object) => {
      const change = object.changes.find((c) => c.field === field);
      return change ? [{ object, change }] : [];
    });
    if (reached.length === 0) return [];
    const probes = reached.filter((r) => r.object.resource === 'vendor_probe').length;
    const lines = reached.slice(0, PREVIEW_LISTED).map(({ object, change }) => ({ name: object.name, before: valueText(change.before), after: valueText(change.after) }));
    const rest = reached.length - lines.length;
    return [{ field, sentence: `Saving changes ${labelOf(field)} on ${kinds(probes, reached.length - probes)}`, lines, more: rest > 0 ? `and ${countText(rest)} more` : null }];
  });
}

/** The dialog's title: how many objects the save reaches. */
export function previewTitle(preview: TemplatePreview): string {
  const probes = preview.objects.filter((o) => o.resource === 'vendor_probe').length;
  return `Saving this template changes ${kinds(probes, preview.objects.length - probes)}`;
}
