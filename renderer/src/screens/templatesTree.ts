/**
 * The template tree (api.md §4) as pure data: templates arranged under their parent_tmpl, the
 * rows a tree view shows when some nodes are collapsed, filtering that keeps the path to each
 * match, and the descendants a template may not take as its parent (rule 7).
 */

export interface TemplateSummary {
  readonly pk: number;
  readonly name: string;
  readonly descr: string;
  readonly parent: number | null;
}

export interface TreeNode {
  readonly template: TemplateSummary;
  readonly children: readonly TreeNode[];
}

/** One visible row of the tree, with what ARIA needs to describe its place. */
export interface TreeRow {
  readonly node: TreeNode;
  readonly level: number;
  readonly posInSet: number;
  readonly setSize: number;
  readonly parent: number | null;
  readonly expanded: boolean | undefined;
}

function byName(a: TreeNode, b: TreeNode): number {
  return a.template.name.localeCompare(b.template.name) || a.template.pk - b.template.pk;
}

/**
 * Templates under their parents, siblings by name. A template whose parent is not in the list
 * (filtered out, or deleted meanwhile) or that sits in a cycle is shown as a root, so that every
 * template appears exactly once.
 */
export function buildForest(templates: readonly TemplateSummary[]): TreeNode[] {
  const byPk = new Map(templates.map((t) => [t.pk, t]));
  const childrenOf = new Map<number | null, TemplateSummary[]>();
  const rootOf = (t: TemplateSummary): number | null => {
    if (t.parent === null || !byPk.has(t.parent)) return null;
    // Walk up: a template whose ancestors loop back never reaches a root; show it as one.
    const seen = new Set([t.pk]);
    for (let at: number | null = t.parent; at !== null; at = byPk.get(at)?.parent ?? null) {
      if (seen.has(at)) return null;
      seen.add(at);
      if (!byPk.has(at)) break;
    }
    return t.parent;
  };
  for (const t of templates) {
    const parent = rootOf(t);
    const list = childrenOf.get(parent) ?? [];
    list.push(t);
    childrenOf.set(parent, list);
  }
  const build = (t: TemplateSummary): TreeNode => ({ template: t, children: (childrenOf.get(t.pk) ?? []).map(build).sort(byName) });
  return (childrenOf.get(null) ?? []).map(build).sort(byName);
}

/** The rows shown, depth first, skipping the children of collapsed nodes. */
export function visibleRows(forest: readonly TreeNode[], collapsed: ReadonlySet<number>): TreeRow[] {
  const rows: TreeRow[] = [];
  const walk = (nodes: readonly TreeNode[], level: number, parent: number | null) => {
    nodes.forEach((node, index) => {
      const hasChildren = node.children.length > 0;
      const expanded = hasChildren ? !collapsed.has(node.template.pk) : undefined;
      rows.push({ node, level, posInSet: index + 1, setSize: nodes.length, parent, expanded });
      if (expanded) walk(node.children, level + 1, node.template.pk);
    });
  };
  walk(forest, 1, null);
  return rows;
}

/** Search terms as the API splits them: on commas and whitespace. */
function termsOf(search: string): string[] {
  return search
    .toLowerCase()
    .split(/[\s,]+/)
    .filter((term) => term !== '');
}

/**
 * The forest reduced to the templates whose name or description contains every term, with
 * their ancestors (so that each match is shown where it sits).
 */
export function filterForest(forest: readonly TreeNode[], search: string): TreeNode[] {
  const terms = termsOf(search);
  if (terms.length === 0) return [...forest];
  const matches = (t: TemplateSummary) => terms.every((term) => t.name.toLowerCase().includes(term) || t.descr.toLowerCase().includes(term));
  const keep = (node: TreeNode): TreeNode | undefined => {
    const children = node.children.flatMap((child) => keep(child) ?? []);
    return matches(node.template) || children.length > 0 ? { template: node.template, children } : undefined;
  };
  return forest.flatMap((node) => keep(node) ?? []);
}

/** The pks of every template below `pk` (children, their children...). */
export function descendantsOf(templates: readonly TemplateSummary[], pk: number): Set<number> {
  const childrenOf = new Map<number, number[]>();
  for (const t of templates) if (t.parent !== null) childrenOf.set(t.parent, [...(childrenOf.get(t.parent) ?? []), t.pk]);
  const found = new Set<number>();
  const queue = [...(childrenOf.get(pk) ?? [])];
  while (queue.length > 0) {
    const next = queue.shift()!;
    if (found.has(next) || next === pk) continue;
    found.add(next);
    queue.push(...(childrenOf.get(next) ?? []));
  }
  return found;
}

/** The pks of the nodes above `pk` in the forest, root first (empty if it is a root or absent). */
export function pathTo(forest: readonly TreeNode[], pk: number): number[] {
  for (const node of forest) {
    if (node.template.pk === pk) return [];
    const below = pathTo(node.children, pk);
    if (below.length > 0 || node.children.some((child) => child.template.pk === pk)) return [node.template.pk, ...below];
  }
  return [];
}

/**
 * Where a key press moves the focus in a tree (the WAI-ARIA tree pattern), or what it toggles.
 * Returns undefined for keys the tree does not handle.
 */
export type TreeMove = { readonly focus: number } | { readonly toggle: number; readonly expand: boolean } | { readonly open: number };

export function treeKey(rows: readonly TreeRow[], focused: number, key: string): TreeMove | undefined {
  const index = rows.findIndex((row) => row.node.template.pk === focused);
  if (index < 0) return rows[0] ? { focus: rows[0].node.template.pk } : undefined;
  const row = rows[index]!;
  const pkAt = (i: number) => rows[Math.max(0, Math.min(rows.length - 1, i))]!.node.template.pk;
  switch (key) {
    case 'ArrowDown':
      return { focus: pkAt(index + 1) };
    case 'ArrowUp':
      return { focus: pkAt(index - 1) };
    case 'Home':
      return { focus: pkAt(0) };
    case 'End':
      return { focus: pkAt(rows.length - 1) };
    case 'ArrowRight':
      if (row.expanded === false) return { toggle: focused, expand: true };
      if (row.expanded === true) return { focus: pkAt(index + 1) };
      return undefined;
    case 'ArrowLeft':
      if (row.expanded === true) return { toggle: focused, expand: false };
      return row.parent === null ? undefined : { focus: row.parent };
    case 'Enter':
    case ' ':
      return { open: focused };
    default:
      if (key.length === 1 && /\S/.test(key)) {
        // Type-ahead: the next row (after the focused one, wrapping) whose name starts with it.
        const lower = key.toLowerCase();
        for (let step = 1; step <= rows.length; step++) {
          const candidate = rows[(index + step) % rows.length]!;
          if (candidate.node.template.name.toLowerCase().startsWith(lower)) return { focus: candidate.node.template.pk };
        }
      }
      return undefined;
  }
}
