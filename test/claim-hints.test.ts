import { describe, expect, it } from 'vitest';
import { mdclaim } from './helpers/cli.js';
import { boardFile, read } from './helpers/tmp.js';

// What a person trying mdclaim by hand is told when the next step is not obvious.

describe('hints for a person at the shell', () => {
  it('next without --by says which made-up name holds the claim and how to finish it, and that way works', () => {
    const file = boardFile('- [ ] one\n');
    const r = mdclaim(['next', '--file', file]);
    expect(r.status).toBe(0);
    const [, id, by] = /^claimed (\S+) "one" by (\S+) /.exec(r.stdout)!;
    expect(r.stderr).toBe(`mdclaim: you hold it as ${by}: finish with npx mdclaim done ${id} --by ${by} (or fail, release); give --by NAME or MDCLAIM_BY to choose the name\n`);
    expect(mdclaim(['done', id!, '--by', by!, '--file', file]).status).toBe(0);
    expect(read(file)).toBe(`- [✅, ${by}] one\n`);
  });

  it('says nothing more when the holder was named, or for --json', () => {
    const file = boardFile('- [ ] one\n- [ ] two\n- [ ] three\n');
    expect(mdclaim(['next', '--file', file, '--by', 'me']).stderr).toBe('');
    expect(mdclaim(['next', '--file', file], { MDCLAIM_BY: 'me' }).stderr).toBe('');
    expect(mdclaim(['next', '--file', file, '--json']).stderr).toBe('');
  });

  it('claim of an id too short to be the start of one says how long a start must be', () => {
    const file = boardFile('- [ ] one\n');
    expect(mdclaim(['claim', '42', '--by', 'me', '--file', file])).toEqual({ status: 3, stdout: '', stderr: 'error[NOT_FOUND]: no task with id 42 (the start of an id must be 4 or more characters)\n' });
  });
});
