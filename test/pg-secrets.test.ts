import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, mdclaimAsync } from './helpers/cli.js';
import { boardUrl, dropBoards, importBoard, PG_URL, pgReachable, pgTitle, sql, uniqueBoard } from './helpers/pg.js';
import { track } from './helpers/procs.js';
import { until } from './helpers/runner.js';
import { boardFile } from './helpers/tmp.js';

// What the CLI shows of a board URL with a password: never the password (in
// a message, its --json, the process title, a history row or the board), and
// what a runner's command is handed: the URL as given, less its password.

const SECRET = 'Zq7secretPw';
const names: string[] = [];
afterAll(() => dropBoards(names));

async function board(doc: string): Promise<string> {
  const name = uniqueBoard('s');
  names.push(name);
  await importBoard(name, doc);
  return name;
}

describe('a board URL with a password, through the CLI', () => {
  it('prints a malformed URL as one line without its password, in text and --json, exit 2', async () => {
    for (const url of [
      `postgres://agent:top/${SECRET}@127.0.0.1/db`,
      `postgres://agent:p@${SECRET}@127.0.0.1:70000/db`,
      `postgres://agent@127.0.0.1:70000/db?password=${SECRET}`,
      `postgres://ag%zzent:${SECRET}@127.0.0.1/db`,
      `postgres:/agent:${SECRET}@127.0.0.1/db`,
      `mysql://agent:${SECRET}@127.0.0.1/db`,
    ]) {
      for (const json of [false, true]) {
        const r = await mdclaimAsync(['list', '--file', url, ...(json ? ['--json'] : [])]);
        expect([r.status, r.stderr.split('\n').length, r.stderr]).toEqual([2, 2, expect.stringMatching(/^error\[USAGE\]: /)]);
        expect(r.stdout + r.stderr).not.toContain(SECRET);
        if (json) expect(JSON.parse(r.stdout).error.code).toBe('USAGE');
      }
    }
  });

  it.skipIf(!pgReachable)(pgTitle('hides the password from the process title of a running mdclaim'), async () => {
    const name = await board('# T\n');
    const url = new URL(boardUrl(name));
    url.password = SECRET;
    const child = track(spawn(process.execPath, [CLI, 'run', '--loop', '--interval', '1s', `--file=${url}`, '--', 'true'], { stdio: 'ignore' }));
    try {
      const cmdline = () => readFileSync(`/proc/${child.pid}/cmdline`, 'latin1');
      await until('the title to name the board', () => cmdline().includes(`?board=${name}`) && cmdline().includes('mdclaim run'));
      expect(cmdline()).not.toContain(SECRET);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it.skipIf(!pgReachable)(pgTitle('hands a command the socket URL as given less its password: an in-task paths lock works; no history row, output or board line holds the password'), async () => {
    const [dir] = (await sql<{ d: string }>('SELECT split_part(current_setting(\'unix_socket_directories\'), \',\', 1) AS d')).map((r) => r.d.trim());
    if (!dir) return;
    const name = await board('# T\n\n- [ ] one {writes: src/}\n');
    const db = new URL(PG_URL).pathname;
    const user = new URL(PG_URL).username || 'postgres';
    const given = `postgres://${db}?host=${encodeURIComponent(dir)}&user=${user}&password=${SECRET}&sslmode=disable&application_name=mdclaim-test&connect_timeout=5&board=${name}`;
    const out = join(dirname(boardFile('')), 'handed');
    const script = `printf %s "$MDCLAIM_FILE" > '${out}' && '${process.execPath}' '${CLI}' paths lock "$MDCLAIM_TASK_ID" --by "$MDCLAIM_BY" --writes src/a.ts`;
    const r = await mdclaimAsync(['run', '--file', given, '--by', 'runner-1', '--', 'sh', '-c', script]);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    expect([r.status, r.stderr]).toEqual([0, expect.anything()]);
    expect(readFileSync(out, 'utf8')).toBe(given.replace(`&password=${SECRET}`, ''));
    expect(r.status).toBe(0);
    const events = await sql<{ event: string; row: string }>(
      'SELECT h.event, row_to_json(h)::text AS row FROM mdclaim.history h JOIN mdclaim.board b ON b.id = h.board WHERE b.name = $1 ORDER BY h.seq',
      [name],
    );
    // The runner renews the claim just before the command starts: renewals are not what this checks. The in-task lock is recorded.
    expect(events.map((e) => e.event).filter((e) => e !== 'renewed')).toEqual(['imported', 'claimed', 'locked', 'done']);
    for (const e of events) expect(e.row).not.toContain(SECRET);
    const doc = await mdclaimAsync(['export', '--file', given]);
    expect([doc.status, doc.stdout]).toEqual([0, expect.stringMatching(/^- \[✅[^,]*, runner-1\] one/m)]);
  });
});
