import { existsSync, readFileSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { mdclaim, mdclaimAsync } from './helpers/cli.js';
import { until } from './helpers/locks.js';
import { boardUrl, dropBoards, pgReachable, pgTitle, uniqueBoard } from './helpers/pg.js';
import { boardFile } from './helpers/tmp.js';
import { tmuxAvailable, TmuxWatch } from './helpers/tmux.js';

// mdclaim watch in a real terminal (tmux), the board changed by other processes.

const BOARD = `# Backend

- [ ] Fix the login {writes: src/auth/}
- [ ] Touch the login too {writes: src/auth/login.ts}
- [⏰] Deploy after the above
- [ ] Write the docs

# Frontend

- [ ] Build the page
`;

/** A terminal of the test's own, gone when the test ends (the tests run at once: see below). */
function term(test: { onTestFinished(fn: () => unknown): void }): TmuxWatch {
  const t = new TmuxWatch();
  test.onTestFinished(() => t.kill());
  return t;
}

const idOf = (file: string, text: string): string => {
  const t = (JSON.parse(mdclaim(['list', '--json', '-f', file]).stdout) as { tasks: { id: string; text: string }[] }).tasks.find((x) => x.text.startsWith(text));
  return t!.id;
};

// Each test has a board and a terminal of its own, and most of its time is waiting (a lease to run out, a lock
// held, the history's interval): they run at once, in every describe below.
describe.skipIf(!tmuxAvailable).concurrent('mdclaim watch on a file board', () => {
  it('follows claims, holds, done and failed made by other processes, and q exits 0 with the terminal restored', async (test) => {
    const file = boardFile(BOARD);
    const t = term(test);
    t.start(['-f', file]);
    await t.waitFor('open 4');
    expect(t.pane('alternate_on')).toBe('1');
    // Colour on a terminal by default (the NO_COLOR test below sees none).
    expect(t.painted()).toMatch(/\x1b\[[0-9;]*3[1-6]m/);

    const login = idOf(file, 'Fix the login');
    expect(mdclaim(['claim', login, '--by', 'alice', '-f', file]).status).toBe(0);
    let screen = await t.waitFor(/claimed 1\b/);
    expect(screen).toContain('open 3');
    await t.waitFor(/src\/auth\/ write\s+alice on /, 'alice holding src/auth/');
    screen = await t.waitFor(`claimed    ${login} by alice`);
    // The task that writes inside src/auth/ waits on alice's claim; the ⏰ waits on the task above.
    expect(screen).toMatch(new RegExp(`src/auth/ \\(write\\) held by alice on ${login}`));
    expect(screen).toMatch(new RegExp(`⏰ waits for ${login}`));

    const page = idOf(file, 'Build the page');
    expect(mdclaim(['claim', page, '--by', 'bob', '-f', file]).status).toBe(0);
    expect(mdclaim(['done', login, '--by', 'alice', '-f', file]).status).toBe(0);
    expect(mdclaim(['fail', page, '--by', 'bob', '--reason', 'the build broke', '-f', file]).status).toBe(0);
    screen = await t.waitFor((s) => s.includes('done 1') && s.includes('failed 1'), 'done 1 and failed 1');
    expect(screen).toMatch(new RegExp(`done\\s+${login} by alice`));
    expect(screen).toMatch(new RegExp(`failed\\s+${page} by bob: the build broke`));
    expect(screen).toMatch(/Backend\s+\[█+░+\] 1\/4 done/);
    // Nobody holds src/auth/ any more.
    expect(screen).not.toContain('held by alice');

    t.keys('q');
    expect(await t.exitStatus()).toBe(0);
    expect(t.pane('alternate_on')).toBe('0');
    expect(t.pane('cursor_flag')).toBe('1');
    // Raw mode is off again: the line discipline is back to canonical input with echo.
    const stty = readFileSync(t.sttyFile, 'utf8');
    expect(stty).toMatch(/(^|\s)icanon\b/);
    expect(stty).toMatch(/(^|\s)echo\b/);
    // It only read: the board is as the other processes left it.
    expect(readFileSync(file, 'utf8')).toContain('[❌');
  });

  it('counts a short claim down and marks it lapsed when its lease runs out, then shows the reap', async (test) => {
    const file = boardFile(BOARD);
    const t = term(test);
    t.start(['-f', file]);
    await t.waitFor('open 4');
    const login = idOf(file, 'Fix the login');
    expect(mdclaim(['claim', login, '--by', 'alice', '--lease', '8s', '-f', file]).status).toBe(0);
    const first = await t.waitFor(new RegExp(`\\d+s\\s+${login}\\s+alice`), 'a countdown');
    const left = Number(new RegExp(`(\\d+)s\\s+${login}`).exec(first)![1]);
    await t.waitFor((s) => {
      const m = new RegExp(`(\\d+)s\\s+${login}`).exec(s);
      return m !== null && Number(m[1]) < left;
    }, 'the countdown going down');
    const lapsed = await t.waitFor(new RegExp(`LAPSED\\s+${login}\\s+alice`), 'the claim marked LAPSED');
    expect(lapsed).toContain('(1 lapsed)');
    expect(lapsed).toContain('waits for a reaper or a taker');
    // A lapsed claim holds nothing: the task writing inside src/auth/ is no longer blocked by it.
    expect(lapsed).not.toContain('held by alice');

    expect(mdclaim(['reap', '-f', file]).status).toBe(0);
    await t.waitFor(new RegExp(`reaped\\s+${login} from alice`));
    t.keys('C-c');
    expect(await t.exitStatus()).toBe(0);
  });

  it('says when the board cannot be read, keeps the last reading, and picks up again once it is back', async (test) => {
    const file = boardFile(BOARD);
    const t = term(test);
    t.start(['-f', file]);
    await t.waitFor('open 4');
    const saved = readFileSync(file);
    renameSync(file, `${file}.away`);
    await t.waitFor('cannot read the board');
    expect(t.screen()).toContain('open 4');
    writeFileSync(file, saved.toString().replace('- [ ] Write the docs', '- [✅] Write the docs'));
    await t.waitFor((s) => s.includes('done 1') && !s.includes('cannot read the board'), 'the board read again');
    t.keys('q');
    expect(await t.exitStatus()).toBe(0);
  });

  it('says when a reading waits on a lock held long, and carries on once it is let go', async (test) => {
    const file = boardFile(BOARD);
    const t = term(test);
    t.start(['-f', file]);
    await t.waitFor('open 4');
    // Another process holds the board's exclusive lock until told to let go (saying so once it holds it).
    const go = `${file}.go`;
    const held = `${file}.held`;
    // Let go however the test ends, so the holder never outlives it.
    test.onTestFinished(() => writeFileSync(go, ''));
    const holding = mdclaimAsync(['lock', '-f', file, '--', 'sh', '-c', ': > "$2"; while [ ! -e "$1" ]; do sleep 0.1; done', 'sh', go, held]);
    await until(() => existsSync(held), 'the lock held');
    // The board touched, not changed: the watch's next reading, which that change asks for, waits for the lock.
    const now = new Date();
    utimesSync(file, now, now);
    await t.waitFor('still waiting for the board');
    expect(t.screen()).toContain('open 4');
    writeFileSync(go, '');
    expect((await holding).status).toBe(0);
    await t.waitFor((s) => !s.includes('still waiting for the board') && s.includes('open 4'), 'the message gone');
    t.keys('q');
    expect(await t.exitStatus()).toBe(0);
  });

  it('puts the terminal back when it is sent SIGTERM (exit 143)', async (test) => {
    const file = boardFile(BOARD);
    const t = term(test);
    t.start(['-f', file]);
    await t.waitFor('open 4');
    // The pane's shell runs watch as its child: signal that process.
    const { execFileSync } = await import('node:child_process');
    const child = execFileSync('pgrep', ['-P', String(t.panePid())], { encoding: 'utf8' }).trim().split('\n')[0]!;
    process.kill(Number(child), 'SIGTERM');
    expect(await t.exitStatus()).toBe(143);
    expect(t.pane('alternate_on')).toBe('0');
    expect(readFileSync(t.sttyFile, 'utf8')).toMatch(/(^|\s)icanon\b/);
  });

  it('shows the keys on ?, and writes plain text under NO_COLOR without a UTF-8 locale', async (test) => {
    const file = boardFile(BOARD);
    const t = term(test);
    t.start(['-f', file], { NO_COLOR: '1', LANG: 'C', LC_ALL: 'C' });
    const screen = await t.waitFor('open 4');
    expect(screen).toContain('[blocked] waits for');
    expect(screen).toMatch(/Backend\s+\[\.+\] 0\/4 done/);
    expect(t.painted()).not.toMatch(/\x1b\[[0-9;]*3[1-6]m/);
    t.keys('?');
    await t.waitFor('show or hide these keys');
    t.keys('?');
    await t.waitFor('open 4');
    t.keys('q');
    expect(await t.exitStatus()).toBe(0);
  });
});

const names: string[] = [];
afterAll(() => dropBoards(names));

describe.skipIf(!tmuxAvailable || !pgReachable).concurrent(pgTitle('mdclaim watch on a PostgreSQL board'), () => {
  it('follows a claim, a done and a fail made through other connections, and q exits 0', async (test) => {
    const name = uniqueBoard('watch');
    names.push(name);
    const url = boardUrl(name);
    const file = boardFile(BOARD);
    expect(mdclaim(['import', file, '--to', url]).status).toBe(0);
    const t = term(test);
    t.start(['-f', url]);
    await t.waitFor('open 4');

    const login = idOf(url, 'Fix the login');
    const page = idOf(url, 'Build the page');
    await mdclaimAsync(['claim', login, '--by', 'alice', '-f', url]);
    await t.waitFor(/src\/auth\/ write\s+alice on /, 'alice holding src/auth/');
    await mdclaimAsync(['claim', page, '--by', 'bob', '-f', url]);
    await t.waitFor(/claimed 2\b/);
    await mdclaimAsync(['done', login, '--by', 'alice', '-f', url]);
    await t.waitFor(new RegExp(`done\\s+${login} by alice`));
    await mdclaimAsync(['fail', page, '--by', 'bob', '--reason', 'the build broke', '-f', url]);
    const screen = await t.waitFor(new RegExp(`failed\\s+${page} by bob: the build broke`));
    expect(screen).toMatch(/done 1\b/);
    t.keys('q');
    expect(await t.exitStatus()).toBe(0);
  });
});

describe.skipIf(!tmuxAvailable).concurrent('mdclaim watch, from the history', () => {
  it("shows the board's durations and rates from its journal, and follows them as tasks finish", async (test) => {
    const file = boardFile(BOARD);
    writeFileSync(`${file}.history.jsonl`, '');
    const login = idOf(file, 'Fix the login');
    const docs = idOf(file, 'Write the docs');
    expect(mdclaim(['claim', login, '--by', 'alice', '-f', file]).status).toBe(0);
    expect(mdclaim(['done', login, '--by', 'alice', '-f', file]).status).toBe(0);
    const t = term(test);
    t.start(['-f', file], { LINES: '60' });
    let screen = await t.waitFor(/History \(/);
    expect(screen).toMatch(/board\s+1 done, 0 failed; claim→done median \d+s, slowest \d+s/);
    expect(mdclaim(['claim', docs, '--by', 'bob', '-f', file]).status).toBe(0);
    expect(mdclaim(['fail', docs, '--by', 'bob', '--reason', 'no', '-f', file]).status).toBe(0);
    // The history is read again at most every 10 s: wait for it.
    screen = await t.waitFor(/board\s+1 done, 1 failed/);
    expect(screen).toContain(`failed most: ${docs} ×1`);
    t.keys('q');
    expect(await t.exitStatus()).toBe(0);
  });
});
