import { describe, expect, it } from 'vitest';
import { ambiguousKey, heldBy } from '../src/board/messages.js';
import { MdclaimError } from '../src/errors.js';

// The refusals both boards give are written once (src/board/messages.ts): a
// board passes the facts. The contract tests (test/contract/) hold each board
// to these words; here, the words themselves.

describe('the shared refusals', () => {
  it('name who holds which path, how, on which task, and carry the holder', () => {
    const err = heldBy({ by: 'dana', path: 'src/auth/', mode: 'write', task: { id: 'PLAT-1', text: 'PLAT-1 Login {writes: src/auth/}' } });
    expect(err).toBeInstanceOf(MdclaimError);
    expect([err.code, err.message, err.holder]).toEqual(['CONFLICT', 'dana holds src/auth/ (write) on PLAT-1 "Login {writes: src/auth/}"', 'dana']);
    const unnamed = heldBy({ by: undefined, path: 'a.ts', mode: 'read', task: { id: '3f2a9c0d1b2e', text: 'read it' } });
    expect([unnamed.message, unnamed.holder]).toEqual(['someone unnamed holds a.ts (read) on 3f2a9c0d1b2e "read it"', undefined]);
  });

  it('say a key on several tasks is no id, listing each with its line', () => {
    const tasks = [
      { id: 'aaaaaaaaaaaa', text: 'PLAT-1 one', line: 2 },
      { id: 'bbbbbbbbbbbb', text: 'PLAT-1 two', line: 5 },
    ];
    expect(ambiguousKey('PLAT-1', tasks).message).toBe('PLAT-1 is on 2 tasks, so it is not an id: use one of aaaaaaaaaaaa "PLAT-1 one" (line 2), bbbbbbbbbbbb "PLAT-1 two" (line 5)');
    expect(ambiguousKey('PLAT-1', tasks, 'tasks claimed by dana')).toMatchObject({ code: 'USAGE', message: expect.stringMatching(/^PLAT-1 is on 2 tasks claimed by dana, so/) });
  });
});
