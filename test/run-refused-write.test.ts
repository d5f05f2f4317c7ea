import { describe, expect, it } from 'vitest';
import { mdclaim } from './helpers/cli.js';
import { boardFile, bytesOf } from './helpers/tmp.js';

// A runner never leaves a claim behind because the board refused one of its own writes: it gives the task back and says why.

describe('a runner whose ending write the board refuses', () => {
  it('gives the task back, leaves the board as it was, and stops with one line saying why', () => {
    // A reason ending in `"` would close the link title left open above and fold the task into a definition.
    const file = boardFile('[foo]: /url "title\n[ ] task\n[ ] other\n');
    const before = bytesOf(file);
    const r = mdclaim(['run', '--file', file, '--by', 'r', '--loop', '--no-commit', '--', 'sh', '-c', 'echo \'tests broke"\' >&2; exit 1']);
    expect(bytesOf(file).equals(before)).toBe(true);
    expect(r.status).toBe(2);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error['));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^error\[USAGE\]: the board refused to fail [0-9a-f]{12} "task": refusing to write line 2: .*; the task was given back$/);
    expect(r.stderr).toMatch(/\nmdclaim: released [0-9a-f]{12} after /);
  });
});
