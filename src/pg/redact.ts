// Where a board URL's password is, read from the URL's text alone, so that a
// URL no parser accepts is shown as safely as one they all accept. Every path
// that shows a URL (messages, --json, the process title) uses redactUrl; the
// command a runner starts gets withoutPassword.

// `postgres:/…` (a slash short) is a URL to hide a password in too.
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/*/;
const SECRET_KEY = /password/i;

/**
 * The URL with anything that may be a password replaced by `***`: the value of
 * the first query parameter whose name holds `password` and everything after
 * it, and in what comes before, all from the first `:` to the last `@` (a
 * password may hold `/`, `?`, `#` or `@`, so no other character ends it). A
 * text that is not `scheme:…` is returned as it is.
 */
export function redactUrl(location: string): string {
  const scheme = SCHEME.exec(location)?.[0];
  if (scheme === undefined) return location;
  let rest = location.slice(scheme.length);
  const param = secretParam(rest);
  if (param >= 0) rest = rest.slice(0, param);
  const at = rest.lastIndexOf('@');
  const colon = rest.indexOf(':');
  if (at >= 0 && colon >= 0 && colon < at) rest = `${rest.slice(0, colon)}:***${rest.slice(at)}`;
  return scheme + rest + (param >= 0 ? '***' : '');
}

/**
 * Does the URL have an `@` after its host with a `:` before it? Then the
 * parsers' password (up to the `@` before the first `/`, `?` or `#`) is not
 * the text redactUrl hides: a password holding one of those, taken for a
 * host, port or path. Such a URL is refused; `%40` spells an `@` anywhere.
 */
export function hasStrayAt(location: string): boolean {
  const scheme = SCHEME.exec(location)?.[0];
  if (scheme === undefined) return false;
  let rest = location.slice(scheme.length);
  const param = secretParam(rest);
  if (param >= 0) rest = rest.slice(0, param);
  const at = rest.lastIndexOf('@');
  const colon = rest.indexOf(':');
  return at >= 0 && colon >= 0 && colon < at && at > authorityEnd(rest);
}

/**
 * The URL as given, less its password: the `:password` of its user part and
 * every query parameter whose name holds `password`. Everything else (other
 * parameters, their order and spelling) is kept. For a URL hasStrayAt passes.
 */
export function withoutPassword(location: string): string {
  const scheme = SCHEME.exec(location)?.[0];
  if (scheme === undefined) return location;
  let rest = location.slice(scheme.length);
  const end = authorityEnd(rest);
  const at = rest.slice(0, end).lastIndexOf('@');
  const colon = rest.indexOf(':');
  if (at >= 0 && colon >= 0 && colon < at) rest = rest.slice(0, colon) + rest.slice(at);
  const q = rest.indexOf('?');
  if (q < 0) return scheme + rest;
  const hash = rest.indexOf('#', q);
  const query = rest.slice(q + 1, hash < 0 ? undefined : hash);
  const kept = query.split('&').filter((p) => !SECRET_KEY.test(keyOf(p)));
  return scheme + rest.slice(0, q) + (kept.length > 0 ? `?${kept.join('&')}` : '') + (hash < 0 ? '' : rest.slice(hash));
}

/** Where the host part ends: the first `/`, `?` or `#`. */
function authorityEnd(rest: string): number {
  const i = rest.search(/[/?#]/);
  return i < 0 ? rest.length : i;
}

/**
 * Just past the `=` of the first query parameter named like a password, or
 * -1. Every `?` starts a parameter here, as every `&` does: a `?` in a
 * password before the query must not hide the query's password= from it.
 */
function secretParam(rest: string): number {
  for (let i = rest.search(/[?&]/); i >= 0; ) {
    const next = rest.slice(i + 1).search(/[?&]/);
    const end = next < 0 ? rest.length : i + 1 + next;
    const p = rest.slice(i + 1, end);
    const eq = p.indexOf('=');
    if (eq >= 0 && SECRET_KEY.test(keyOf(p))) return i + 1 + eq + 1;
    i = next < 0 ? -1 : end;
  }
  return -1;
}

/** A parameter's name as the URL parser reads it (`+` a space, %-escapes decoded). */
function keyOf(param: string): string {
  const eq = param.indexOf('=');
  return [...new URLSearchParams(eq < 0 ? param : param.slice(0, eq)).keys()][0] ?? '';
}
