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
  const url = secretsOf(location);
  if (url === undefined) return location;
  let { rest } = url;
  if (url.user) rest = `${rest.slice(0, url.user.colon)}:***${rest.slice(url.user.at)}`;
  return url.scheme + rest + (url.cut ? '***' : '');
}

/**
 * Does the URL have an `@` after its host with a `:` before it? Then the
 * parsers' password (up to the `@` before the first `/`, `?` or `#`) is not
 * the text redactUrl hides: a password holding one of those, taken for a
 * host, port or path. Such a URL is refused; `%40` spells an `@` anywhere.
 */
export function hasStrayAt(location: string): boolean {
  const url = secretsOf(location);
  return url?.user !== undefined && url.user.at > authorityEnd(url.rest);
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
  const user = userPassword(rest, authorityEnd(rest));
  if (user) rest = rest.slice(0, user.colon) + rest.slice(user.at);
  const q = rest.indexOf('?');
  if (q < 0) return scheme + rest;
  const hash = rest.indexOf('#', q);
  const kept = pieces(rest.slice(q + 1, hash < 0 ? undefined : hash), /&/g).filter((p) => !isSecret(p.text));
  return scheme + rest.slice(0, q) + (kept.length > 0 ? `?${kept.map((p) => p.text).join('&')}` : '') + (hash < 0 ? '' : rest.slice(hash));
}

/**
 * What redactUrl hides, read from the text alone: the URL after its scheme
 * (`rest`), cut just past the `=` of the first query parameter named like a
 * password (`cut`), and the `:password` of the user part before that.
 */
function secretsOf(location: string): { scheme: string; rest: string; cut: boolean; user: { colon: number; at: number } | undefined } | undefined {
  const scheme = SCHEME.exec(location)?.[0];
  if (scheme === undefined) return undefined;
  let rest = location.slice(scheme.length);
  const param = secretParam(rest);
  if (param >= 0) rest = rest.slice(0, param);
  return { scheme, rest, cut: param >= 0, user: userPassword(rest, rest.length) };
}

/** The `:` and `@` around the password of a user part: the first `:`, and the last `@` of the first `end` characters, when the `:` comes first. */
function userPassword(rest: string, end: number): { colon: number; at: number } | undefined {
  const at = rest.slice(0, end).lastIndexOf('@');
  const colon = rest.indexOf(':');
  return at >= 0 && colon >= 0 && colon < at ? { colon, at } : undefined;
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
  // The first piece comes before any `?` or `&`: it is no parameter.
  const p = pieces(rest, /[?&]/g).slice(1).find((p) => p.text.includes('=') && isSecret(p.text));
  return p === undefined ? -1 : p.at + p.text.indexOf('=') + 1;
}

/** The pieces of `text` between the separators `sep` matches, each with where it starts. */
function pieces(text: string, sep: RegExp): { at: number; text: string }[] {
  const out: { at: number; text: string }[] = [];
  let at = 0;
  for (const m of text.matchAll(sep)) {
    out.push({ at, text: text.slice(at, m.index) });
    at = m.index + m[0].length;
  }
  out.push({ at, text: text.slice(at) });
  return out;
}

/** Is this parameter named like a password? Its name as the URL parser reads it (`+` a space, %-escapes decoded). */
function isSecret(param: string): boolean {
  const eq = param.indexOf('=');
  return SECRET_KEY.test([...new URLSearchParams(eq < 0 ? param : param.slice(0, eq)).keys()][0] ?? '');
}
