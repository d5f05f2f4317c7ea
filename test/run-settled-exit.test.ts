import { describe, expect, it } from 'vitest';
import { read } from './helpers/tmp.js';
import { runner, runnerBoard } from './helpers/runner.js';

// What a scheduler (cron, a CI step) reads from a runner that stops by itself,
// and how soon a runner takes back a retry it is waiting for.

// A poll interval far longer than any retry here: a runner that waited for its
// next poll instead of the retry's time could not end within it.
const SLOW_POLL = ['--interval', '120s'];

describe('run --until-settled and --max: exit status and retries on time', () => {
  it('exits 1 when a task ends failed for good after its retries, having taken each retry when it fell due', async () => {
    const b = runnerBoard('- [ ] Sync the mirror\n');
    const started = Date.now();
    const end = await runner(b.file, ['--by', 'r1', '--no-commit', '--until-settled', ...SLOW_POLL, '--retries', '2', '--retry-delay', '1s', '--', 'sh', '-c', 'echo flaky >&2; exit 1']).done;
    const took = Date.now() - started;
    expect(end.stderr).toContain('attempt 2 given back');
    expect([end.code, read(b.file)]).toEqual([1, '- [❌, r1] Sync the mirror // Attempts: 3 // Failed: exit 1: flaky (after 3 attempts)\n']);
    // Two retries, 1s and 2s apart (plus up to 20%, rounded up to the second): well inside one poll (96–144s).
    expect(took).toBeLessThan(90_000);
  });

  it('exits 0 when a task that failed once is done on its retry', async () => {
    const b = runnerBoard('- [ ] Sync the mirror\n');
    // Fails the first time, succeeds the second: the mark lives beside the board.
    const script = 'if [ -e "$DIR/tried" ]; then exit 0; fi; : > "$DIR/tried"; exit 1';
    const started = Date.now();
    const end = await runner(b.file, ['--by', 'r1', '--no-commit', '--until-settled', ...SLOW_POLL, '--retries', '1', '--retry-delay', '1s', '--', 'sh', '-c', script], { env: b.env() }).done;
    expect(end.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(90_000);
    expect(read(b.file)).toMatch(/^- \[✅, r1\] Sync the mirror\b/);
  });

  it('exits 1 when --max stopped a loop after a failed task, 0 when all it ran is done', async () => {
    const b = runnerBoard('- [ ] one\n- [ ] two\n- [ ] three\n');
    const failing = await runner(b.file, ['--by', 'r1', '--no-commit', '--loop', '--max', '2', '--', 'sh', '-c', '[ "$MDCLAIM_TASK_TEXT" = one ]']).done;
    expect([failing.code, read(b.file)]).toEqual([1, '- [✅, r1] one\n- [❌, r1] two // Failed: exit 1\n- [ ] three\n']);
    const passing = await runner(b.file, ['--by', 'r1', '--no-commit', '--loop', '--max', '1', '--', 'true']).done;
    expect([passing.code, read(b.file)]).toEqual([0, '- [✅, r1] one\n- [❌, r1] two // Failed: exit 1\n- [✅, r1] three\n']);
  });
});
