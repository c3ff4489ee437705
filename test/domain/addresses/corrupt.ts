/** `text` with the character at `index` (negative counts from the end) replaced by `replacement`. */
export function replaceCharAt(text: string, index: number, replacement: string): string {
  const at = index < 0 ? text.length + index : index;
  if (text.charAt(at) === replacement) throw new Error(`replacement at ${at} would not change ${text}`);
  return text.slice(0, at) + replacement + text.slice(at + 1);
}
