import assert from 'node:assert/strict';
import { ERROR_ITEM_CODES, type ErrorItem } from '../../src/errors.js';

/**
 * Asserts the `errors` list every error body carries (docs/contract.md §10.4): at least one item, each
 * `{code, field, detail}` with a code of the closed list, a field that is a string or null and a
 * string detail (amount items may add the pair limits). Returns the items.
 */
export function assertErrorItems(body: Record<string, unknown>): ErrorItem[] {
  const items = body.errors;
  assert.ok(Array.isArray(items) && items.length > 0, `errors must be a non-empty list: ${JSON.stringify(body)}`);
  const codes: readonly string[] = ERROR_ITEM_CODES;
  for (const item of items as Record<string, unknown>[]) {
    assert.ok(codes.includes(String(item.code)), `item code ${String(item.code)} is not in the closed list`);
    assert.ok(item.field === null || typeof item.field === 'string', `item field: ${JSON.stringify(item)}`);
    assert.equal(typeof item.detail, 'string');
    assert.ok((item.detail as string).length > 0);
    for (const key of Object.keys(item)) {
      assert.ok(['code', 'field', 'detail', 'min_amount', 'max_amount', 'min_amount_to', 'max_amount_to'].includes(key), `undocumented item field ${key}`);
    }
  }
  return items as ErrorItem[];
}
