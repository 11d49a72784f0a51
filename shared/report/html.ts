/** Text from data in HTML: the five characters that could end an element or an attribute escaped (text and attribute values alike). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
