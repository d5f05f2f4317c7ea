import { afterEach, describe, expect, it } from 'vitest';
import { mdclaim } from './helpers/cli.js';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runner, until } from './helpers/runner.js';
import { boardFile, read } from './helpers/tmp.js';
import { TmuxWatch, tmuxAvailable } from './helpers/tmux.js';

// A looping runner with nothing to do says so once on a terminal, and says
// when work wakes it; to a pipe or a file it says neither.

let term: TmuxWatch | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

describe.skipIf(!tmuxAvailable)('run --loop on a terminal (needs tmux; skipped otherwise)', () => {
  it('says once that it is idle, and that it woke when a task appears', async () => {
    const file = boardFile('- [x] old\n');
    term = new TmuxWatch();
    term.start(['--loop', '--max', '1', '--interval', '200ms', '--by', 'r1', '--no-commit', '--file', file, '--', 'true'], {}, 'run');
    await term.waitFor(`mdclaim: idle: nothing to claim in ${file}; looking again every 200ms (^C stops)`);
    expect(mdclaim(['add', 'fresh work', '--file', file]).status).toBe(0);
    expect(await term.exitStatus()).toBe(0);
    const screen = term.screen();
    // Said once each, however many polls it idled through.
    expect(screen.split('\n').filter((l) => l.startsWith('mdclaim: idle:')).length).toBe(1);
    expect(screen).toMatch(/^mdclaim: idle: .*\nmdclaim: awake: work appeared\nmdclaim: claimed \S+ "fresh work".*\nmdclaim: done \S+ in/);
    expect(read(file)).toBe('- [x] old\n- [✅, r1] fresh work\n');
  });
});

describe('run --loop to a pipe', () => {
  it('prints no idle line, though its --events file has the idle and awake events', async () => {
    const file = boardFile('- [x] old\n');
    const events = join(dirname(file), 'events.jsonl');
    const r = runner(file, ['--loop', '--max', '1', '--interval', '100ms', '--by', 'r1', '--no-commit', '--events', events, '--', 'true']);
    await until('the idle event', () => existsSync(events) && read(events).includes('"event":"idle"'));
    expect(mdclaim(['add', 'fresh work', '--file', file]).status).toBe(0);
    const end = await r.done;
    expect(end.code).toBe(0);
    expect(end.stderr).not.toMatch(/idle|awake/);
    expect(read(events).split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { event: string }).event)).toEqual(['start', 'idle', 'awake', 'claimed', 'heartbeat', 'exit', 'done', 'stop']);
  });
});
