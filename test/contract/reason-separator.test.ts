import { expect, it } from 'vitest';
import { named } from '../../src/format/named.js';
import { mdclaim } from '../helpers/cli.js';
import { describeKinds } from './kinds.js';

// ` // Failed:` ends a failed line's text: a text holding it could be claimed but never failed, so
// no one adds it and no one claims it, on every board, by one rule.

const WHY = 'holds "// Failed:" in its text, where only a failure\'s reason may follow';

describeKinds('the failure reason\'s separator in a task\'s text on the $name board', (kind) => {
  it('is refused by add, exit 2, the board untouched', async () => {
    const { location: f, bytes } = await kind.make('# Work\n\n- [ ] one\n');
    const before = await bytes();
    for (const text of ['check the "x // Failed: y" case', '// Failed: first']) {
      expect(mdclaim(['add', text, '--file', f])).toEqual({ status: 2, stdout: '', stderr: `error[USAGE]: the task ${WHY}\n` });
    }
    expect(mdclaim(['add', 'check the "x //Failed: y" case', '--file', f]).status).toBe(0);
    expect((await bytes()).toString()).toBe(`${before.toString()}- [ ] check the "x //Failed: y" case\n`);
  });

  it('on a line written by hand keeps it from being claimed: claim says why naming the line, next and run pass over it', async () => {
    const { location: f, board, bytes } = await kind.make('# Work\n\n- [ ] check the "x // Failed: y" case\n- [ ] two\n');
    const [odd] = await board.list();
    expect(odd!.text).toBe('check the "x // Failed: y" case');
    const before = await bytes();
    expect(mdclaim(['claim', odd!.id, '--file', f, '--by', 'a'])).toEqual({ status: 2, stdout: '', stderr: `error[USAGE]: line 3 ${WHY} (fix the line to claim it)\n` });
    expect(await bytes()).toEqual(before);
    const r = mdclaim(['run', '--file', f, '--by', 'r', '--loop', '--until-settled', '--no-commit', '--', 'sh', '-c', 'exit 1']);
    // 1: the task it ran ended failed.
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n').filter((l) => l.includes('passed over'))).toEqual([`mdclaim: passed over ${named(odd!)}: line 3 ${WHY} (fix the line to claim it)`]);
    expect((await bytes()).toString()).toBe('# Work\n\n- [ ] check the "x // Failed: y" case\n- [❌, r] two // Failed: exit 1\n');
  });
});
