/**
 * HTML for the cabinet's server-rendered pages: a tagged template that escapes every value it
 * is given unless the value is already Html (made by this template, or `trusted` for markup
 * this server generated, such as a QR code's SVG). Nothing a partner or a chain wrote reaches a
 * page unescaped.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

function render(value: Value): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map((item: Value) => render(item)).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let text = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) text += render(values[i]) + (strings[i + 1] ?? '');
  return new Html(text);
}

/** Markup this server generated itself (never anything from a request or the database). */
export function trusted(markup: string): Html {
  return new Html(markup);
}
