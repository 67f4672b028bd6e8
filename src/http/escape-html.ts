/** Text as HTML text or an attribute value: `& < > " '` become character references. Docs and console share it. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}
