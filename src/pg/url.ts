import { userInfo } from 'node:os';
import { usage } from '../errors.js';
import { hasStrayAt, redactUrl, withoutPassword } from './redact.js';

/** Does this board location name a PostgreSQL board rather than a file? */
export function isPgUrl(location: string): boolean {
  // `postgres:` a slash short is a mistyped URL (refused as one), not a file to create.
  return /^postgres(ql)?:/i.test(location);
}

export interface PgTarget {
  /** What to hand the pg client: the URL without mdclaim's own parameters. */
  connectionString: string;
  /** The board's name inside the database (`?board=NAME`, default `default`). */
  board: string;
  /** `postgres://user@host:port/db`: what messages show, never the password. */
  display: string;
  /** The URL as given less its password: what a runner hands its commands as MDCLAIM_FILE. */
  handOff: string;
  /** `?connect_timeout=S` in milliseconds, when given. */
  connectTimeoutMs?: number;
}

export const DEFAULT_BOARD = 'default';
const BOARD_NAME = /^[A-Za-z0-9._-]{1,64}$/;
const LIKE_VERIFY_FULL = new Set(['prefer', 'require', 'verify-ca']);

/** Read and check a board URL; a malformed one is a usage error that never echoes the password (see redact.ts). */
export function parsePgUrl(location: string): PgTarget {
  const shown = redactUrl(location);
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    throw usage(`"${shown}" is not a valid PostgreSQL URL (use postgres://user@host:port/db?board=NAME)`);
  }
  if (!/^postgres(ql)?:\/\//i.test(location)) throw usage(`"${shown}" is not a postgres:// URL`);
  if (hasStrayAt(location)) {
    throw usage(`"${shown}" has an @ after its host: write @, /, ? and # in a password as %40, %2F, %3F and %23`);
  }
  for (const [part, value] of [['user name', url.username], ['password', url.password], ['database name', url.pathname]] as const) {
    if (decoded(value) === null) throw usage(`"${shown}": the ${part} has a bad %-escape (% must start %XX, UTF-8 in hex)`);
  }
  const socketHost = url.searchParams.get('host');
  if (url.hostname === '' && socketHost === null) throw usage(`${display(url)}: the URL names no host`);
  if (url.port !== '' && !(Number(url.port) > 0 && Number(url.port) < 65536)) throw usage(`${display(url)}: bad port "${url.port}"`);
  const db = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (db.includes('/')) throw usage(`${display(url)}: the path must be one database name`);
  const boards = url.searchParams.getAll('board');
  if (boards.length > 1) throw usage(`${display(url)}: board= given more than once`);
  const board = boards[0] ?? DEFAULT_BOARD;
  if (!BOARD_NAME.test(board)) throw usage(`${display(url)}: board name "${board}" must be 1–64 of [A-Za-z0-9._-]`);
  url.searchParams.delete('board');
  // node-postgres verifies the certificate and the host's name for these modes (as verify-full, not as libpq
  // does) and says so in a many-line warning on stderr; spelt verify-full, the same connection says nothing.
  if (LIKE_VERIFY_FULL.has(url.searchParams.get('sslmode') ?? '') && url.searchParams.get('uselibpqcompat') !== 'true') url.searchParams.set('sslmode', 'verify-full');
  const target: PgTarget = { connectionString: url.toString(), board, display: display(url), handOff: withoutPassword(location) };
  const timeout = url.searchParams.get('connect_timeout');
  if (timeout !== null) {
    if (!/^\d+$/.test(timeout)) throw usage(`${display(url)}: connect_timeout must be whole seconds, got "${timeout}"`);
    target.connectTimeoutMs = Number(timeout) * 1000;
  }
  return target;
}

/** `postgres://user@host:port/db` with the defaults libpq would use filled in. */
function display(url: URL): string {
  const user = decodeURIComponent(url.username) || url.searchParams.get('user') || process.env['PGUSER'] || safeUser();
  const host = url.hostname || url.searchParams.get('host') || 'localhost';
  const port = url.port || '5432';
  const db = decodeURIComponent(url.pathname.replace(/^\//, '')) || user;
  return `postgres://${user}@${host}:${port}/${db}`;
}

/** The text with its %-escapes decoded; null for a bad one. (The value is used: a bundler drops a call it thinks pure.) */
function decoded(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'postgres';
  }
}
