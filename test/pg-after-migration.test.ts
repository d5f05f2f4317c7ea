import { afterAll, describe, expect, it } from 'vitest';
import { openBoard } from '../src/index.js';
import { textHash } from '../src/format/id.js';
import { MIGRATIONS } from '../src/pg/schema.js';
import { PG_URL, pgReachable, sql } from './helpers/pg.js';

// A database upgraded to migration 9 reads what its tasks wait for from their text, and gives
// them the ids the file board gives them (without their `{after: …}`), as an import now would.

describe.skipIf(!pgReachable)('migration 9 on a board imported before it', () => {
  const db = `mdclaim_after_${process.pid}`;
  afterAll(async () => {
    await sql(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  });

  it('keeps on each row what its text waits for, and its id without it', async () => {
    const { default: pg } = await import('pg');
    await sql(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
    await sql(`CREATE DATABASE ${db}`);
    const u = new URL(PG_URL);
    u.pathname = `/${db}`;
    const c = new pg.Client({ connectionString: u.toString() });
    await c.connect();
    await c.query('CREATE SCHEMA mdclaim; CREATE TABLE mdclaim.meta (version int NOT NULL); INSERT INTO mdclaim.meta VALUES (7)');
    for (const m of MIGRATIONS.slice(0, 7)) await c.query(m);
    // Two rows as migration 7's import wrote them, the hash of the second one over its whole text (any other than the new one).
    await c.query(`INSERT INTO mdclaim.board (name) VALUES ('b')`);
    const row = (pos: number, text: string, hash: string) =>
      c.query(
        `INSERT INTO mdclaim.task (board, position, lead, body, text_end, lead_breaks, body_breaks, text, hash, tags, status, marker)
         VALUES ((SELECT id FROM mdclaim.board WHERE name = 'b'), $1, '\\x2d20'::bytea, convert_to(' ' || $2 || E'\\n', 'UTF8'), length(convert_to(' ' || $2, 'UTF8')), 0, 1, $2, $3, '{}', 'open', convert_to('[ ]', 'UTF8'))`,
        [pos, text, hash],
      );
    await row(1000, 'Add the endpoint', textHash('Add the endpoint', 0, 16));
    await row(2000, 'Deploy {after: zzzz}', 'deadbeef0000');
    await c.end();
    u.searchParams.set('board', 'b');
    const b = openBoard(u.toString());
    const { tasks, blockers } = await b.survey();
    await b.close();
    expect(tasks.map((t) => t.id)).toEqual([textHash('Add the endpoint', 0, 16), textHash('Deploy', 0, 6)]);
    expect(blockers).toEqual([null, { kind: 'line', reason: 'waits for zzzz, which names no task' }]);
  });
});

