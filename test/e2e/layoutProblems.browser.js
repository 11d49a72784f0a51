/*
 * Runs in the page (evaluated by layoutCheck.ts; plain JavaScript, since the tests' TypeScript
 * has no DOM types): what a user cannot read on the screen now, one line per problem.
 */
(function layoutProblems() {
  const problems = [];
  const name = (el) => {
    const label =
      el.getAttribute('aria-label') ??
      (el.id ? document.querySelector(`label[for="${CSS.escape(el.id)}"]`)?.textContent : undefined) ??
      el.getAttribute('placeholder') ??
      el.textContent?.trim().slice(0, 40);
    return `<${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ')[0]}` : ''}> "${label ?? ''}"`;
  };
  const shown = (el) => {
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden') return false;
    const rect = el.getBoundingClientRect();
    return rect.width > 0 || rect.height > 0 ? true : el.getClientRects().length > 0;
  };
  /** The part of the element's width that its clipping ancestors let through. */
  const visibleWidth = (el) => {
    const rect = el.getBoundingClientRect();
    let left = rect.left;
    let right = rect.right;
    for (let p = el.parentElement; p; p = p.parentElement) {
      const style = getComputedStyle(p);
      if (style.overflowX === 'visible') continue;
      const box = p.getBoundingClientRect();
      left = Math.max(left, box.left + p.clientLeft);
      right = Math.min(right, box.left + p.clientLeft + p.clientWidth);
    }
    left = Math.max(left, 0);
    right = Math.min(right, document.documentElement.clientWidth);
    return Math.max(0, right - left);
  };
  const scope = document.querySelectorAll('main, [role="contentinfo"], dialog[open]');
  const inScope = (selector) => [...scope].flatMap((root) => [...root.querySelectorAll(selector)]);

  for (const el of inScope('input, select, textarea, button')) {
    if (!shown(el) || el.type === 'hidden') continue;
    if (el.closest('[hidden], .visually-hidden')) continue;
    const width = el.getBoundingClientRect().width;
    const visible = visibleWidth(el);
    const textual = el.tagName === 'SELECT' || el.tagName === 'TEXTAREA' || (el.tagName === 'INPUT' && !['checkbox', 'radio', 'file', 'submit', 'button'].includes(el.type));
    const least = textual ? 48 : 12;
    if (width < least) problems.push(`${name(el)} is ${Math.round(width)} px wide (less than ${least} px)`);
    else if (visible < width * 0.9 - 1) problems.push(`${name(el)} is cut: ${Math.round(visible)} of ${Math.round(width)} px shown`);
  }

  for (const el of inScope('[role="gridcell"], [role="columnheader"], .vtable-th, td, th')) {
    if (!shown(el) || el.closest('[hidden]')) continue;
    const html = el;
    const width = el.getBoundingClientRect().width;
    if (width < 16) problems.push(`${name(el)}: a list cell ${Math.round(width)} px wide`);
    const visible = visibleWidth(el);
    if (visible < width * 0.9 - 1) problems.push(`${name(el)}: a list cell cut by its pane, ${Math.round(visible)} of ${Math.round(width)} px shown`);
    const cut = html.scrollWidth > html.clientWidth + 1 && getComputedStyle(html).overflowX !== 'visible';
    if (cut) {
      const full = html.title || html.querySelector('[title]')?.getAttribute('title') || '';
      if (full.trim() === '') problems.push(`${name(el)}: its text is cut and no tooltip shows it whole`);
    }
  }

  // A list pane that does not clip must hold its content: a list running past it is drawn over
  // the detail pane below it.
  for (const pane of inScope('.screen.split > .list-pane')) {
    if (!shown(pane) || getComputedStyle(pane).overflowY !== 'visible') continue;
    const box = pane.getBoundingClientRect();
    let bottom = box.bottom;
    // Its children, and a list's scrolling body, which may be taller than the list around it.
    for (const child of [...pane.children, ...pane.querySelectorAll('.vtable-body')]) if (shown(child)) bottom = Math.max(bottom, child.getBoundingClientRect().bottom);
    if (bottom > box.bottom + 1) problems.push(`${name(pane)}: its content runs ${Math.round(bottom - box.bottom)} px past its bottom, over what follows`);
  }

  const bar = document.querySelector('[role="contentinfo"]');
  if (bar) {
    const lineHeight = parseFloat(getComputedStyle(bar).lineHeight) || 20;
    const height = bar.getBoundingClientRect().height;
    if (height > lineHeight * 1.9 + 16) problems.push(`the status bar is ${Math.round(height)} px high: more than one line`);
    for (const part of bar.children) {
      const html = part;
      if (html.scrollWidth > html.clientWidth + 1 && !html.title) problems.push(`${name(part)}: a status bar part is cut with no tooltip`);
    }
  }
  return problems;
})
