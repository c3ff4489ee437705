import { HtmlValidate, type ConfigData } from 'html-validate';

/**
 * The cabinet's pages checked by html-validate (its recommended rules: parse errors such as a
 * block that closes a `<p>`, stray or missing end tags, nested forms and interactive elements,
 * duplicate ids and attributes; content models, attribute values, labels and more). Each rule
 * turned off or changed here says why next to it.
 */
const CONFIG: ConfigData = {
  extends: ['html-validate:recommended'],
  rules: {
    // `<!doctype html>` in lower case is what the HTML standard writes; the case is not an error.
    'doctype-style': 'off',
    // recommended leaves it off; a page without the doctype renders in quirks mode.
    'missing-doctype': 'error',
    // An interpolation that renders nothing (no problem to say) leaves its line's indentation:
    // whitespace between elements, never rendered and never a parse error.
    'no-trailing-whitespace': 'off',
    // A group of checkboxes (a webhook's events) is one control name by design: the form posts
    // every checked value under it.
    'form-dup-name': ['error', { shared: ['radio', 'button', 'reset', 'submit', 'checkbox'] }],
  },
};

const validator = new HtmlValidate(CONFIG);

/** The page's problems (rule, message, line:column and the text there); empty when the page is valid. */
export function htmlProblems(page: string): string[] {
  const report = validator.validateStringSync(page);
  const lines = page.split('\n');
  return report.results.flatMap((result) =>
    result.messages.map((message) => {
      const text = (lines[message.line - 1] ?? '').slice(Math.max(0, message.column - 40), message.column + 40).trim();
      return `${message.ruleId}: ${message.message} at ${message.line}:${message.column} (…${text}…)`;
    }),
  );
}
