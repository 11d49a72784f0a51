/**
 * The template tree as a WAI-ARIA tree: one tab stop (the focused item), arrows move and
 * expand/collapse, Home/End, type-ahead, Enter or Space opens a template. Names and
 * descriptions are cut at 256 characters: the template's page has them whole.
 */
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { boundedText } from '../components/bounded';
import { pathTo, treeKey, visibleRows, type TreeNode } from './templatesTree';

interface Props {
  readonly forest: readonly TreeNode[];
  readonly selected: number | undefined;
  readonly onOpen: (pk: number) => void;
  /** Expand everything regardless of what the user collapsed (while a search is shown). */
  readonly expandAll?: boolean;
  /** What uses a template, as its row's badge says it ("2 templates · 31 probes"). */
  readonly usageOf?: (pk: number) => string | undefined;
}

export function TemplateTreeView({ forest, selected, onOpen, expandAll = false, usageOf }: Props) {
  const [collapsed, setCollapsed] = useState<ReadonlySet<number>>(new Set());
  const effective = useMemo(() => (expandAll ? new Set<number>() : collapsed), [expandAll, collapsed]);
  const rows = useMemo(() => visibleRows(forest, effective), [forest, effective]);
  const [focused, setFocused] = useState<number | undefined>(selected);
  const items = useRef(new Map<number, HTMLDivElement>());

  // The tab stop follows the selection, whose ancestors are expanded so that it is shown.
  useEffect(() => {
    if (selected === undefined) return;
    setFocused(selected);
    const path = pathTo(forest, selected);
    setCollapsed((current) => (path.some((pk) => current.has(pk)) ? new Set([...current].filter((pk) => !path.includes(pk))) : current));
  }, [selected, forest]);
  const tabStop = rows.some((row) => row.node.template.pk === focused) ? focused : rows[0]?.node.template.pk;

  const toggle = (pk: number, expand: boolean) =>
    setCollapsed((current) => {
      const next = new Set(current);
      if (expand) next.delete(pk);
      else next.add(pk);
      return next;
    });

  const onKeyDown = (event: KeyboardEvent<HTMLUListElement>) => {
    if (tabStop === undefined || event.altKey || event.ctrlKey || event.metaKey) return;
    const move = treeKey(rows, tabStop, event.key);
    if (!move) return;
    event.preventDefault();
    event.stopPropagation();
    if ('focus' in move) {
      setFocused(move.focus);
      items.current.get(move.focus)?.focus();
    } else if ('toggle' in move) {
      toggle(move.toggle, move.expand);
    } else {
      onOpen(move.open);
    }
  };

  const render = (nodes: readonly TreeNode[], level: number) =>
    nodes.map((node, index) => {
      const { pk, name, descr } = node.template;
      const hasChildren = node.children.length > 0;
      const expanded = hasChildren ? !effective.has(pk) : undefined;
      const labelId = `template-tree-${pk}`;
      const usage = usageOf?.(pk);
      const descrId = descr ? `${labelId}-descr` : undefined;
      const usageId = usage ? `${labelId}-usage` : undefined;
      const groupId = `${labelId}-group`;
      const describedBy = [descrId, usageId].filter((id) => id !== undefined).join(' ');
      // The item is the row alone, named by the template's name: its children's group is beside
      // it (owned through aria-owns), and the description and the badge are drawn by CSS from data
      // attributes and read as the item's description, so that everything the item shows is in
      // its name (axe: label-content-name-mismatch).
      return (
        <li key={pk} role="none">
          <div
            ref={(element) => {
              if (element) items.current.set(pk, element);
              else items.current.delete(pk);
            }}
            role="treeitem"
            aria-labelledby={labelId}
            aria-describedby={describedBy || undefined}
            aria-owns={hasChildren && expanded ? groupId : undefined}
            aria-level={level}
            aria-posinset={index + 1}
            aria-setsize={nodes.length}
            aria-expanded={expanded}
            aria-selected={pk === selected}
            tabIndex={pk === tabStop ? 0 : -1}
            onFocus={(event) => {
              if (event.target === event.currentTarget) setFocused(pk);
            }}
          >
            <div
              className={`tree-row${pk === selected ? ' selected' : ''}`}
              style={{ paddingLeft: `${0.4 + (level - 1) * 1.15}rem` }}
              onClick={() => {
                setFocused(pk);
                onOpen(pk);
              }}
            >
              <span
                className={`tree-toggle${hasChildren ? '' : ' leaf'}`}
                aria-hidden="true"
                onClick={(event) => {
                  if (!hasChildren) return;
                  event.stopPropagation();
                  toggle(pk, !expanded);
                }}
              >
                {hasChildren ? (expanded ? '▾' : '▸') : '·'}
              </span>
              <span id={labelId} className="tree-name">
                {boundedText(name)}
              </span>
              {descr && (
                <>
                  <span className="tree-descr" data-descr={boundedText(descr)} aria-hidden="true" />
                  <span id={descrId} className="visually-hidden">
                    {boundedText(descr)}
                  </span>
                </>
              )}
              {usage && (
                <>
                  <span className="tree-count" data-usage={usage} title="What uses this template" aria-hidden="true" />
                  <span id={usageId} className="visually-hidden">
                    {usage}
                  </span>
                </>
              )}
            </div>
          </div>
          {hasChildren && expanded && (
            <ul role="group" id={groupId} className="tree-group">
              {render(node.children, level + 1)}
            </ul>
          )}
        </li>
      );
    });

  return (
    <ul role="tree" aria-label="Templates" className="template-tree" onKeyDown={onKeyDown}>
      {render(forest, 1)}
    </ul>
  );
}
