import { describe, expect, it } from 'vitest';
import { toByteString } from '../src/format/bytes.js';
import { scanTasks } from '../src/format/scan.js';
import { worktreeOf } from '../src/format/worktree-section.js';

describe('worktree headings', () => {
  it.each([
    ['Git Worktree api', 'api'],
    ['Worktree: phase-01-foundation', 'phase-01-foundation'],
    ['Worktree phase-02', 'phase-02'],
    ['worktree: web', 'web'],
    ['Git Worktree feature-auth {af_wt_001}', 'feature-auth'],
    ['Worktree: web {id 7}', 'web'],
    ['Git Worktree  kill', 'kill'],
    ['Worktree phase-02 {wt_2}', 'phase-02'],
  ])('%s names the worktree %s', (heading, name) => {
    expect(worktreeOf(heading)).toBe(name);
  });

  it.each(['Worktree', 'Worktree:', 'Worktrees x', 'Git Worktree {x}', 'Notes', 'My Worktree x', 'Worktree setup notes'])('%s names none', (heading) => {
    expect(worktreeOf(heading)).toBeUndefined();
  });
});

describe('a worktree section', () => {
  const sections = (md: string) => scanTasks(toByteString(md)).map((t) => t.section);

  it('runs to the next heading of its own level or higher: a sub-heading inside it belongs to it', () => {
    const md = '## Git Worktree api\n\n[ ] a\n\n### Backend\n\n[⏰] b\n\n#### Deeper\n\n[ ] c\n\n## Notes\n\n[ ] d\n\n### Sub\n\n[ ] e\n';
    expect(sections(md)).toEqual(['Git Worktree api', 'Git Worktree api', 'Git Worktree api', 'Notes', 'Sub']);
  });

  it('ends at a heading of a higher level; every heading inside it is a sub-heading, a worktree heading too', () => {
    const md = '# Board\n\n## Worktree: web\n\n[ ] a\n\n# Other\n\n[ ] b\n\n## Worktree one\n\n### Worktree two\n\n[ ] c\n';
    expect(sections(md)).toEqual(['Worktree: web', 'Other', 'Worktree one']);
  });
});
