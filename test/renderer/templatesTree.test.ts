/** The template tree as data (renderer/src/screens/templatesTree.ts): what the tree view shows and how its keys move. */
import { describe, expect, test } from 'vitest';
import { buildForest, descendantsOf, filterForest, pathTo, treeKey, visibleRows, type TemplateSummary } from '../../renderer/src/screens/templatesTree';

describe('the template tree as data (templatesTree.ts)', () => {
  const t = (pk: number, name: string, parent: number | null, descr = ''): TemplateSummary => ({ pk, name, descr, parent });
  const list = [t(1, 'Root', null), t(2, 'Beta', 1), t(3, 'Alpha', 1), t(4, 'Leaf', 3, 'deep one'), t(5, 'Other', null), t(6, 'Orphan', 99)];

  test('templates sit under their parents, siblings by name; an unknown parent makes a root', () => {
    const forest = buildForest(list);
    expect(forest.map((n) => n.template.name)).toEqual(['Orphan', 'Other', 'Root']);
    expect(forest[2]!.children.map((n) => n.template.name)).toEqual(['Alpha', 'Beta']);
    expect(forest[2]!.children[0]!.children.map((n) => n.template.name)).toEqual(['Leaf']);
  });

  test('a template in a cycle is still shown once, as a root', () => {
    const forest = buildForest([t(1, 'A', 2), t(2, 'B', 1)]);
    expect(forest.map((n) => n.template.name)).toEqual(['A', 'B']);
  });

  test('collapsed nodes hide their children; rows carry level, position and expansion', () => {
    const rows = visibleRows(buildForest(list), new Set([3]));
    expect(rows.map((r) => [r.node.template.name, r.level, r.posInSet, r.setSize, r.expanded])).toEqual([
      ['Orphan', 1, 1, 3, undefined],
      ['Other', 1, 2, 3, undefined],
      ['Root', 1, 3, 3, true],
      ['Alpha', 2, 1, 2, false],
      ['Beta', 2, 2, 2, undefined],
    ]);
  });

  test('a search keeps every term-matching template and the path to it', () => {
    const names = (search: string) => visibleRows(filterForest(buildForest(list), search), new Set()).map((r) => r.node.template.name);
    expect(names('deep')).toEqual(['Root', 'Alpha', 'Leaf']);
    expect(names('leaf, DEEP')).toEqual(['Root', 'Alpha', 'Leaf']);
    expect(names('leaf other')).toEqual([]);
    expect(names('  ')).toEqual(['Orphan', 'Other', 'Root', 'Alpha', 'Leaf', 'Beta']);
  });

  test('descendants and the path from the root', () => {
    expect([...descendantsOf(list, 1)].sort()).toEqual([2, 3, 4]);
    expect([...descendantsOf(list, 4)]).toEqual([]);
    expect(pathTo(buildForest(list), 4)).toEqual([1, 3]);
    expect(pathTo(buildForest(list), 1)).toEqual([]);
  });

  test('keys move as the WAI-ARIA tree pattern says', () => {
    const rows = visibleRows(buildForest(list), new Set([3]));
    expect(treeKey(rows, 1, 'ArrowDown')).toEqual({ focus: 3 });
    expect(treeKey(rows, 6, 'ArrowUp')).toEqual({ focus: 6 });
    expect(treeKey(rows, 3, 'ArrowRight')).toEqual({ toggle: 3, expand: true });
    expect(treeKey(rows, 1, 'ArrowRight')).toEqual({ focus: 3 });
    expect(treeKey(rows, 1, 'ArrowLeft')).toEqual({ toggle: 1, expand: false });
    expect(treeKey(rows, 2, 'ArrowLeft')).toEqual({ focus: 1 });
    expect(treeKey(rows, 5, 'ArrowLeft')).toBeUndefined();
    expect(treeKey(rows, 6, 'End')).toEqual({ focus: 2 });
    expect(treeKey(rows, 2, 'Home')).toEqual({ focus: 6 });
    expect(treeKey(rows, 2, 'Enter')).toEqual({ open: 2 });
    expect(treeKey(rows, 1, 'o')).toEqual({ focus: 6 });
    expect(treeKey(rows, 6, 'o')).toEqual({ focus: 5 });
  });
});
