// A row's attempts field (migration 4), written as a claim, a release, a retry or a reap writes it.

/**
 * The SET of a row `t`'s body, field length and recorded count once its field says `n` (and
 * `notBefore`) for `status`: what mdclaim.set_tries returns, as three expressions of the row's old
 * values. The function's row, assigned as a sub-select, was a plan of its own that the server set up
 * at every execution of every statement that writes the field; mdclaim.tries_field, one expression,
 * is inlined.
 */
export function setTries(status: string, n: string, notBefore: string): string {
  const field = `mdclaim.tries_field(${status}, ${n}, ${notBefore})`;
  return `body = overlay(t.body PLACING ${field} FROM t.text_end + 1 FOR t.tries_len), tries_len = length(${field}),
    attempts = CASE WHEN length(${field}) = 0 THEN NULL ELSE greatest(${n}, 1) END`;
}
