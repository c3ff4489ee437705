/**
 * The parse errors of an HTML page that matter for the cabinet's server-rendered markup, found
 * by a small HTML5 tokenizer and a tree builder that knows the implied-end rules which silently
 * rewrite a page: a `<p>` that a block (a form, a div, a table) closes, an end tag with no
 * element open, an element left open, a form inside a form, a link or button inside another,
 * two attributes of one name, two elements of one id, no doctype. A validator library
 * (html-validate) would check more; none is a dependency of this project (see docs/adr/0042-cabinet-round-2.md),
 * so this checks what broke pages before.
 */

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title']);
/** Start tags that close an open `<p>` (the HTML standard's list): in our markup, always a mistake. */
const CLOSES_P = new Set([
  'address', 'article', 'aside', 'blockquote', 'details', 'dialog', 'div', 'dl', 'fieldset', 'figcaption', 'figure', 'footer', 'form',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr', 'main', 'menu', 'nav', 'ol', 'p', 'pre', 'section', 'table', 'ul',
]);
/** Elements whose end tag may be left out (closed by a sibling or the parent's end): not errors. */
const OPTIONAL_END = new Set(['li', 'dt', 'dd', 'option', 'tr', 'td', 'th', 'thead', 'tbody', 'tfoot']);
const INTERACTIVE = new Set(['a', 'button']);

interface Tag {
  name: string;
  end: boolean;
  selfClosing: boolean;
  attributes: Array<[string, string]>;
  at: number;
}

/** The page's problems, each with the offset it was found at; empty when the page is clean. */
export function htmlProblems(page: string): string[] {
  const problems: string[] = [];
  const where = (at: number) => `at ${at} (…${page.slice(Math.max(0, at - 40), at + 40).replace(/\s+/g, ' ')}…)`;
  if (!/^<!doctype html>/i.test(page.trimStart())) problems.push('no <!doctype html> first');
  const open: string[] = [];
  const ids = new Map<string, number>();
  let foreign = 0;
  let i = 0;
  while (i < page.length) {
    const lt = page.indexOf('<', i);
    if (lt < 0) break;
    if (page.startsWith('<!--', lt)) {
      const close = page.indexOf('-->', lt + 4);
      if (close < 0) {
        problems.push(`unclosed comment ${where(lt)}`);
        break;
      }
      i = close + 3;
      continue;
    }
    if (page.startsWith('<!', lt)) {
      i = page.indexOf('>', lt) + 1 || page.length;
      continue;
    }
    const tag = readTag(page, lt);
    if (tag === undefined) {
      problems.push(`a "<" that starts no tag ${where(lt)}`);
      i = lt + 1;
      continue;
    }
    i = tag.next;
    const { name } = tag;
    if (tag.end) {
      if (name === 'svg' || name === 'math') foreign = Math.max(0, foreign - 1);
      const index = open.lastIndexOf(name);
      if (index < 0) {
        problems.push(`end tag </${name}> with no <${name}> open ${where(lt)}`);
        continue;
      }
      for (const left of open.slice(index + 1)) {
        if (!OPTIONAL_END.has(left)) problems.push(`<${left}> left open when </${name}> closed its parent ${where(lt)}`);
      }
      open.length = index;
      continue;
    }
    const seen = new Set<string>();
    for (const [attribute, value] of tag.attributes) {
      if (seen.has(attribute)) problems.push(`attribute ${attribute} twice on <${name}> ${where(lt)}`);
      seen.add(attribute);
      if (attribute === 'id') {
        if (ids.has(value)) problems.push(`id "${value}" used twice ${where(lt)}`);
        ids.set(value, lt);
      }
    }
    if (foreign > 0) {
      if (!tag.selfClosing) open.push(name);
      if (name === 'svg' || name === 'math') foreign++;
      continue;
    }
    if (tag.selfClosing && !VOID.has(name) && name !== 'svg' && name !== 'math') problems.push(`<${name}/> is not a void element ${where(lt)}`);
    if (CLOSES_P.has(name) && open.includes('p')) problems.push(`<${name}> inside <p> (the parser closes the <p> there) ${where(lt)}`);
    if (name === 'form' && open.includes('form')) problems.push(`<form> inside <form> ${where(lt)}`);
    if (INTERACTIVE.has(name) && open.some((parent) => INTERACTIVE.has(parent))) problems.push(`<${name}> inside <a> or <button> ${where(lt)}`);
    if (VOID.has(name)) continue;
    if ((name === 'svg' || name === 'math') && !tag.selfClosing) foreign++;
    if (tag.selfClosing) continue;
    // Siblings that close an open optional-end element (a second <li>, <td>, <tr>, …).
    if (OPTIONAL_END.has(name) && open[open.length - 1] === name) open.pop();
    open.push(name);
    if (RAW_TEXT.has(name)) {
      const close = page.toLowerCase().indexOf(`</${name}`, i);
      if (close < 0) {
        problems.push(`<${name}> never closed ${where(lt)}`);
        break;
      }
      i = close;
    }
  }
  for (const left of open) if (!OPTIONAL_END.has(left) && left !== 'html' && left !== 'body' && left !== 'head') problems.push(`<${left}> never closed`);
  return problems;
}

function readTag(page: string, lt: number): (Tag & { next: number }) | undefined {
  const head = /^<(\/?)([a-zA-Z][a-zA-Z0-9-]*)/.exec(page.slice(lt, lt + 64));
  if (head === null) return undefined;
  const attributes: Array<[string, string]> = [];
  let i = lt + head[0].length;
  const attribute = /\s*([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/y;
  for (;;) {
    const rest = /\s*(\/?)>/y;
    rest.lastIndex = i;
    const closing = rest.exec(page);
    if (closing !== null) {
      return { name: head[2]!.toLowerCase(), end: head[1] === '/', selfClosing: closing[1] === '/', attributes, at: lt, next: rest.lastIndex };
    }
    attribute.lastIndex = i;
    const found = attribute.exec(page);
    if (found === null) return undefined;
    attributes.push([found[1]!.toLowerCase(), found[2] ?? found[3] ?? found[4] ?? '']);
    i = attribute.lastIndex;
  }
}
