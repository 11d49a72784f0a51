/** Written by another developer; this placeholder only keeps the app building meanwhile. */
export function TemplatesScreen() {
  return <p className="empty">This screen is being written.</p>;
}
