import { listTasks } from '../board/walk.js';
import { lookAlikes } from '../file/look-alikes.js';
import { toByteString } from '../format/bytes.js';
import { Db, type Conn } from '../pg/db.js';
import { renderDocument } from '../pg/render.js';
import { readDocument } from '../pg/transfer.js';
import { findBoard } from '../pg/boards.js';
import { schemaVersion } from '../pg/migrate.js';
import { LATEST } from '../pg/schema.js';
import { parsePgUrl } from '../pg/url.js';
import { afterFinding, finding, type Finding } from './finding.js';

/** A PostgreSQL board: the connection, the schema's version, the board, and whether a pooler stands between. Reads only. */
export async function checkPg(url: string): Promise<Finding[]> {
  const target = parsePgUrl(url);
  const db = new Db(target, { max: 1, connectTimeoutMs: target.connectTimeoutMs ?? 10_000, lockTimeoutMs: 10_000, durable: false });
  try {
    return await db.with(async (c) => {
      const [server] = await c.query<{ version: string; port: number | null }>("SELECT current_setting('server_version') AS version, inet_server_port() AS port");
      const out = [finding('connection', 'ok', `${target.display}: PostgreSQL ${server!.version}`)];
      const version = await schemaVersion(c);
      if (version > LATEST) out.push(finding('schema', 'fail', `version ${version}, newer than this mdclaim knows (${LATEST})`, 'upgrade mdclaim'));
      else if (version < LATEST) out.push(finding('schema', 'warn', version === 0 ? 'no mdclaim schema yet: the first command creates it' : `version ${version}: the first command upgrades it to ${LATEST}`, `npx mdclaim migrate --file URL, to do it now (it needs the right to create tables)`));
      else out.push(finding('schema', 'ok', `version ${version}, this mdclaim's`));
      if (version <= LATEST) {
        const board = version === 0 ? null : await findBoard(c, target.board);
        if (board === null) {
          out.push(finding('board', 'fail', `no board "${target.board}" in ${target.display}`, 'npx mdclaim import tasks.md --to URL, or npx mdclaim add "…" --file URL'));
        } else {
          out.push(finding('board', 'ok', `board "${target.board}"`));
          out.push(...(await reading(c, board, target.board)));
          // The view's own refusals of what lines wait for (migration 9 on).
          if (version === LATEST) {
            const refused = await c.query<{ line: number; reason: string }>(
              `SELECT v.line, v.blocker->>'reason' AS reason FROM mdclaim.task_view v
               WHERE v.board = $1 AND cardinality(v.after) > 0 AND v.blocker->>'kind' = 'line' ORDER BY v.position`,
              [board],
            );
            for (const r of refused) out.push(afterFinding(`line ${r.line}`, r.reason));
          }
        }
      }
      out.push(pooler(target.connectionString, server!.port));
      return out;
    });
  } catch (err) {
    return [finding('connection', 'fail', (err as Error).message.split('\n')[0]!, 'check the URL, that the server runs and accepts this user (docs/postgres-guide.md)')];
  } finally {
    await db.end().catch(() => {});
  }
}

/** The lines of the board's document that look like tasks but are none, as for a file board (see lookAlikes). */
async function reading(c: Conn, board: number, name: string): Promise<Finding[]> {
  const { rows, tail } = await readDocument(c, board);
  const doc = renderDocument(rows, tail);
  const tasks = listTasks(toByteString(doc));
  return lookAlikes(doc.toString('utf8'), tasks).map((l) => finding('reading', 'warn', `board "${name}", line ${l.line}: looks like a task but is not one: ${l.why}`, 'write it as a task line (docs/FORMAT.md), if it is meant as one'));
}

/**
 * A port other than the one the server listens on means something stands
 * between: a pooler (PgBouncer, a cloud proxy), where mdclaim's prepared
 * statements and its lost-write lookup need care (docs/postgres.md).
 */
function pooler(connectionString: string, serverPort: number | null): Finding {
  let port: number | null = null;
  try {
    const u = new URL(connectionString);
    if (u.hostname !== '' && !u.searchParams.has('host')) port = Number(u.port || 5432);
  } catch {
    // a form URL does not parse: nothing to compare
  }
  if (port === null || serverPort === null) return finding('pooler', 'skip', 'connected through a socket: nothing stands between');
  if (port === serverPort) return finding('pooler', 'ok', `port ${port} is the server's own: no pooler between`);
  return finding(
    'pooler',
    'warn',
    `connected on port ${port}, the server listens on ${serverPort}: a pooler or proxy stands between; a write whose answer a dropped connection lost may then be made twice`,
    'connect to the server itself; else use PgBouncer in session mode, or transaction mode from 1.21 with max_prepared_statements (docs/postgres.md)',
  );
}
