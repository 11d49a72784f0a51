/**
 * Text to the clipboard, in the desktop app and in a browser. The Clipboard API first; where a
 * page has none (plain http on another address than localhost) or the app's session refuses it
 * (the desktop app grants the page no permission), through a selection and the copy command,
 * still inside the click that asked for it.
 */
export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard) {
    try {
      return await navigator.clipboard.writeText(text);
    } catch {
      // Refused: the selection below needs no permission.
    }
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  try {
    area.select();
    if (!document.execCommand('copy')) throw new Error('The clipboard refused the text.');
  } finally {
    area.remove();
  }
}
