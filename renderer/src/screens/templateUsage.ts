/**
 * What uses a template, in words a user can act on (api.md §4 rule 8): counts rather than the
 * server's list of every name, which runs to a wall of text for a template with many probes.
 * Pure: tested directly.
 */

export function counted(count: number, one: string, many: string): string {
  return `${count.toLocaleString('en')} ${count === 1 ? one : many}`;
}

/** "2 templates and 31 probes" (the kinds that are there), or undefined when nothing uses it. */
export function usersText(templates: number, probes: number): string | undefined {
  const parts = [...(templates > 0 ? [counted(templates, 'template', 'templates')] : []), ...(probes > 0 ? [counted(probes, 'probe', 'probes')] : [])];
  return parts.length > 0 ? parts.join(' and ') : undefined;
}

/** The short badge of a tree row: "2 templates · 31 probes", or undefined when nothing uses it. */
export function usageBadge(templates: number, probes: number | undefined): string | undefined {
  const parts = [...(templates > 0 ? [counted(templates, 'template', 'templates')] : []), ...(probes ? [counted(probes, 'probe', 'probes')] : [])];
  return parts.length > 0 ? parts.join(' · ') : undefined;
}

const REFUSAL = /^Template "(.*)" is used by: (.*)$/s;

/**
 * The server's refusal to delete a template in use, `Template "X" is used by: template "A",
 * probe "b", …`, as counts: `Template "X" is still used by 1 template and 31 probes.` Any other
 * message is returned as it is.
 */
export function summariseRefusal(message: string): string {
  const match = REFUSAL.exec(message);
  if (!match) return message;
  const users = match[2]!;
  // Each user starts the list or follows ", ", as `template "…"` or `probe "…"`.
  const kinds = [...users.matchAll(/(?:^|", )(template|probe) "/g)].map((m) => m[1]);
  const text = usersText(kinds.filter((k) => k === 'template').length, kinds.filter((k) => k === 'probe').length);
  return text ? `Template "${match[1]!}" is still used by ${text}. Give them another template first.` : message;
}
