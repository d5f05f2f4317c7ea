import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PgBoard } from '../src/index.js';
import { mdclaimAsync, type CliResult } from './helpers/cli.js';
import { boardUrl, dropBoards, importBoard, PG_URL, pgReachable, pgTitle, uniqueBoard } from './helpers/pg.js';

// A PostgreSQL connection the server ends under mdclaim (pg_terminate_backend,
// as a restart or a failover would) is one line error[IO] for a CLI call, or
// work run again on a new connection; never a stack trace. A runner sees its
// tasks through. The drops here are real: another session terminates the
// backends of every connection the board under test opens, over and over.

const names: string[] = [];
afterAll(() => dropBoards(names));

async function board(doc: string): Promise<{ name: string; url: string }> {
  const name = uniqueBoard('d');
  names.push(name);
  await importBoard(name, doc);
  // Only this board's connections carry this name: the terminator ends no one else's.
  const url = new URL(boardUrl(name));
  url.searchParams.set('application_name', name);
  return { name, url: url.toString() };
}

/** Terminate every backend named `app` every `ms` (30–100 by default) until stopped; resolves to how many it ended. */
function terminator(app: string, ms: readonly [number, number] = [30, 100]): { stop(): Promise<number> } {
  let running = true;
  const ended = (async () => {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    let n = 0;
    try {
      while (running) {
        const r = await client.query<{ n: string }>('SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE application_name = $1', [app]);
        n += Number(r.rows[0]!.n);
        await new Promise((resolve) => setTimeout(resolve, ms[0] + Math.random() * (ms[1] - ms[0])));
      }
    } finally {
      await client.end();
    }
    return n;
  })();
  return {
    async stop() {
      running = false;
      return ended;
    },
  };
}

/** Exit 0, 3 or 4 as the verb says, or exit 1 with one line error[IO]; nothing else, and no trace. */
function expectOneLineOrSuccess(r: CliResult): void {
  expect(r.stderr).not.toMatch(/\n\s+at |node:|Unhandled|TypeError/);
  if (r.status === 1) expect(r.stderr).toMatch(/^error\[IO\]: [^\n]*\n$/);
  else expect([0, 3, 4]).toContain(r.status);
}

describe.skipIf(!pgReachable)(pgTitle('a PostgreSQL connection dropped under mdclaim'), () => {
  it('makes each CLI call either succeed or fail as one line error[IO] exit 1, while the server ends its connections again and again', async () => {
    const { name, url } = await board('# T\n\n' + Array.from({ length: 40 }, (_, i) => `- [ ] task ${i}\n`).join(''));
    const kill = terminator(name);
    const results: CliResult[] = [];
    try {
      for (let i = 0; i < 5; i++) {
        for (const args of [['list'], ['next', '--by', `w${i}`, '--json'], ['paths', '--json'], ['reap', '--dry-run']]) {
          results.push(await mdclaimAsync([...args, '--file', url]));
        }
      }
    } finally {
      // The harness must have dropped connections under the calls, or it proves nothing.
      expect(await kill.stop()).toBeGreaterThan(0);
    }
    for (const r of results) expectOneLineOrSuccess(r);
    // Every claim reported made is on the board, by its claimer; no task went to two claimers.
    const b = new PgBoard(boardUrl(name));
    try {
      const byId = new Map((await b.list()).map((t) => [t.id, t]));
      const made = results.filter((r) => r.status === 0 && r.stdout.startsWith('{"task"')).map((r) => (JSON.parse(r.stdout) as { task: { id: string; by: string } }).task);
      for (const t of made) expect(byId.get(t.id)?.by).toBe(t.by);
      expect(new Set(made.map((t) => t.id)).size).toBe(made.length);
    } finally {
      await b.close();
    }
  });

  it('lets a runner see every task through to done while its connections are dropped again and again', async () => {
    const { name, url } = await board('# T\n\n' + Array.from({ length: 6 }, (_, i) => `- [ ] task ${i}\n`).join(''));
    // Less often than above: a storm that ends each new session before it has done anything is an outage, not a drop.
    const kill = terminator(name, [200, 600]);
    let r: CliResult;
    try {
      r = await mdclaimAsync(['run', '--file', url, '--until-settled', '--interval', '200ms', '--lease', '3s', '--by', 'runner-d', '--', 'sleep', '0.5']);
    } finally {
      expect(await kill.stop()).toBeGreaterThan(0);
    }
    expect(r.stderr).not.toMatch(/\n\s+at |node:|Unhandled/);
    expect(r.status, r.stderr + r.stdout).toBe(0);
    const b = new PgBoard(boardUrl(name));
    try {
      expect((await b.list()).map((t) => `${t.status} ${t.by}`), r.stderr + r.stdout).toEqual(Array.from({ length: 6 }, () => 'done runner-d'));
    } finally {
      await b.close();
    }
  });
});
