import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { textHash } from '../../src/format/id.js';
import { runner, until } from '../helpers/runner.js';
import { scratchDir } from '../helpers/tmp.js';
import { describeKinds } from './kinds.js';

// A runner with nothing it may claim waits; a task done elsewhere that another waits for
// (`{after: …}`) wakes it: it does not sleep out its poll (an hour here, longer than the test may run).

const A = textHash('Add the /health endpoint', 0, 24);

describeKinds('a looping runner on the $name board', (kind) => {
  it('wakes and claims a task once what it waits for is done by someone else', async () => {
    const at = `${new Date(Date.now() - 60_000).toISOString().slice(0, 19)}Z`;
    const { location, board } = await kind.make(`- [🟡, other, ${at}] Add the /health endpoint\n- [ ] Show health {after: ${A}}\n`);
    const events = join(scratchDir('mdclaim-after-run-'), 'events.jsonl');
    const r = runner(location, ['--loop', '--max', '1', '--interval', '1h', '--by', 'r1', '--no-commit', '--events', events, '--', 'true']);
    await until('the idle event', () => existsSync(events) && readFileSync(events, 'utf8').includes('"event":"idle"'));
    await board.done(A, { by: 'other' });
    const end = await r.done;
    expect([end.code, end.stderr]).toEqual([0, expect.stringContaining('Show health')]);
    expect((await board.list()).map((t) => [t.status, t.by])).toEqual([['done', 'other'], ['done', 'r1']]);
  });
});
