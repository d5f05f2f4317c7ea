import { userInfo } from 'node:os';
import { usage } from '../errors.js';

/** Does this board location name a PostgreSQL board rather than a file? */
export function isPgUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

export interface PgTarget {
  /** What to hand the pg client: the URL without mdclaim's own parameters. */
  connectionString: string;
  /** The board's name inside the database (`?board=NAME`, default `default`). */
  board: string;
  /** `postgres://user@host:port/db`: what messages show, never the password. */
  display: string;
  /** `?connect_timeout=S` in milliseconds, when given. */
  connectTimeoutMs?: number;
}

export const DEFAULT_BOARD = 'default';
const BOARD_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** Read and check a board URL; a malformed one is a usage error that never echoes the password. */
export function parsePgUrl(location: string): PgTarget {
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    throw usage(`"${hidePassword(location)}" is not a valid PostgreSQL URL (use postgres://user@host:port/db?board=NAME)`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') throw usage(`"${hidePassword(location)}" is not a postgres:// URL`);
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
  const target: PgTarget = { connectionString: url.toString(), board, display: display(url) };
  const timeout = url.searchParams.get('connect_timeout');
  if (timeout !== null) {
    if (!/^\d+$/.test(timeout)) throw usage(`${display(url)}: connect_timeout must be whole seconds, got "${timeout}"`);
    target.connectTimeoutMs = Number(timeout) * 1000;
  }
  return target;
}

/** `postgres://user@host:port/db` with the defaults libpq would use filled in. */
function display(url: URL): string {
  const user = decodeURIComponent(url.username) || process.env['PGUSER'] || safeUser();
  const host = url.hostname || url.searchParams.get('host') || 'localhost';
  const port = url.port || '5432';
  const db = decodeURIComponent(url.pathname.replace(/^\//, '')) || user;
  return `postgres://${user}@${host}:${port}/${db}`;
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'postgres';
  }
}

function hidePassword(location: string): string {
  return location.replace(/^(\w+:\/\/[^/:@]*):[^@/]*@/, '$1:***@');
}
