/**
 * Escaping for text placed inside prompt markup. It matches Python's `html.escape` exactly
 * (`&#x27;` for the apostrophe) because the reference `to-prompt` output is reproduced byte for
 * byte, and one escaping rule for every prompt block keeps them consistent.
 */
const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#x27;",
};

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ENTITIES[char] ?? char);
}
