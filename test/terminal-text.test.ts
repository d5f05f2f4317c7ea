import { afterEach, describe, expect, it } from 'vitest';
import { mdclaim } from './helpers/cli.js';
import { boardFile } from './helpers/tmp.js';
import { tmuxAvailable, TmuxWatch } from './helpers/tmux.js';
import { describeKinds } from './contract/kinds.js';

// A board is shared and edited by others: what it says is shown to the reader, never obeyed by the reader's terminal.

const ESC = '\x1b';
const BEL = '\x07';
const TITLE = `${ESC}]0;pwned${BEL}`; // OSC 0: the window title
const CLIP = `${ESC}]52;c;aGVsbG8=${BEL}`; // OSC 52: a clipboard write
const CLEAR = `${ESC}[2J`; // clear the screen
const RED = `${ESC}[31m`; // SGR
const CSI = '\u009b'; // the one-byte C1 form of ESC [

const BOARD = [
  `# Head ${RED}ing`,
  '',
  `- [ ] Title ${TITLE} task`,
  `- [ ] Clip ${CLIP} task`,
  `- [ ] Clear ${CLEAR} task ${RED}red${ESC}[0m ${CSI}2J`,
  `- [❌] Broken task // Failed: rea${TITLE}son ${CLEAR}`,
  '',
].join('\n');

/** Any control character but the line feed that ends each line. */
const RAW = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/;

describeKinds('human output on the $name board', (kind) => {
  it('escapes controls from task text, headings and failure reasons in list, status, next, reap and release; --json stays JSON', async () => {
    const { location: f } = await kind.make(BOARD);
    for (const args of [['list'], ['status'], ['next', '--by', 'x', '--lease', '1s']]) {
      const r = mdclaim([...args, '-f', f]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).not.toMatch(RAW);
      expect(r.stderr).not.toMatch(RAW);
    }
    const shown = mdclaim(['list', '-f', f]).stdout;
    expect(shown).toContain('Title \\u001b]0;pwned\\u0007 task');
    expect(shown).toContain('Clip \\u001b]52;c;aGVsbG8=\\u0007 task');
    expect(shown).toContain('Clear \\u001b[2J task \\u001b[31mred\\u001b[0m \\u009b2J');
    expect(mdclaim(['status', '-f', f]).stdout).toContain('rea\\u001b]0;pwned\\u0007son \\u001b[2J');
    // The claim above is at least 0s old: reap --ttl 0s says it would reopen it, quoting the text.
    const reap = mdclaim(['reap', '--dry-run', '--ttl', '0s', '-f', f]);
    expect(reap.status).toBe(0);
    expect(reap.stdout).toContain('\\u001b]0;pwned');
    expect(reap.stdout).not.toMatch(RAW);
    const id = JSON.parse(mdclaim(['list', '--json', '-f', f]).stdout).tasks.find((t: { status: string }) => t.status === 'claimed').id as string;
    const release = mdclaim(['release', id, '--by', 'x', '-f', f]);
    expect(release.status, release.stderr).toBe(0);
    expect(release.stdout).not.toMatch(RAW);
    // JSON is JSON: the text comes back whole when parsed.
    const listed = JSON.parse(mdclaim(['list', '--json', '-f', f]).stdout) as { tasks: { text: string }[] };
    expect(listed.tasks.map((t) => t.text)).toContain(`Title ${TITLE} task`);
  });
});

const terms: TmuxWatch[] = [];
afterEach(() => {
  for (const t of terms.splice(0)) t.kill();
});

describe.skipIf(!tmuxAvailable)('watch in a real terminal', () => {
  it('shows a board full of escape sequences escaped: the title, the clipboard and the screen stay as they were', async () => {
    const file = boardFile(BOARD);
    const t = new TmuxWatch();
    terms.push(t);
    t.start(['-f', file]);
    const screen = await t.waitFor('Failed (1)');
    // Had ESC[2J reached the terminal, the screen above it would be gone; had OSC 0, the pane's title would read pwned.
    expect(screen).toContain(' mdclaim watch ');
    expect(screen).toContain('rea\\u001b]0;pwned\\u0007son \\u001b[2J');
    expect(screen).toContain('Head \\u001b[31ming');
    expect(t.pane('pane_title')).not.toContain('pwned');
    // Only watch's own colours are painted: no red from the heading runs on into the bar.
    expect(t.painted()).not.toMatch(/Head \x1b/);
    t.keys('q');
    expect(await t.exitStatus()).toBe(0);
  });
});
