import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI } from './cli.js';

// A real terminal for the full-screen view: a tmux server of its own (its own
// socket), 120x40, the screen read back with capture-pane.

let n = 0;

export const tmuxAvailable = spawnSync('tmux', ['-V']).status === 0;

export class TmuxWatch {
  readonly socket = `mdclaim-${process.pid}-${n++}`;
  private readonly dir = mkdtempSync(join(tmpdir(), 'mdclaim-tmux-'));
  /** Where the wrapper writes `mdclaim watch`'s exit status, then the terminal's settings after it. */
  readonly rcFile = join(this.dir, 'rc');
  readonly sttyFile = join(this.dir, 'stty');

  /** Start `mdclaim watch ARGS` (or another command) in the terminal; `env` as `NAME=value` words. */
  start(args: readonly string[], env: Record<string, string> = {}, command = 'watch'): void {
    const vars = Object.entries({ LANG: 'C.UTF-8', ...env }).map(([k, v]) => `${k}=${quote(v)}`).join(' ');
    const cmd = `env ${vars} ${quote(process.execPath)} ${quote(CLI)} ${command} ${args.map(quote).join(' ')}; echo $? > ${quote(this.rcFile)}; stty -a > ${quote(this.sttyFile)} 2>&1; sleep 600`;
    this.tmux(['-f', '/dev/null', 'new-session', '-d', '-x', '120', '-y', '40', 'sh', '-c', cmd]);
  }

  screen(): string {
    return this.tmux(['capture-pane', '-p']);
  }

  /** The screen with its colours as escape sequences. */
  painted(): string {
    return this.tmux(['capture-pane', '-p', '-e']);
  }

  /** The tmux format variable of the pane (`alternate_on`, `cursor_flag`). */
  pane(format: string): string {
    return this.tmux(['display-message', '-p', `#{${format}}`]).trim();
  }

  keys(...keys: string[]): void {
    this.tmux(['send-keys', ...keys]);
  }

  /** Wait until the screen shows what `want` matches (generous: a loaded machine is slow), else fail with the screen. */
  async waitFor(want: string | RegExp | ((screen: string) => boolean), what = String(want), ms = 120_000): Promise<string> {
    const test = typeof want === 'function' ? want : (s: string) => (typeof want === 'string' ? s.includes(want) : want.test(s));
    const end = Date.now() + ms;
    let screen = '';
    for (;;) {
      screen = this.screen();
      if (test(screen)) return screen;
      if (Date.now() > end) throw new Error(`the screen never showed ${what}; it shows:\n${screen}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The exit status the wrapper wrote, once it has. */
  async exitStatus(ms = 120_000): Promise<number> {
    const end = Date.now() + ms;
    while (!existsSync(this.rcFile) || readFileSync(this.rcFile, 'utf8').trim() === '') {
      if (Date.now() > end) throw new Error(`watch did not exit; the screen shows:\n${this.screen()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return Number(readFileSync(this.rcFile, 'utf8').trim());
  }

  /** The pid of the process running in the pane (the wrapper shell). */
  panePid(): number {
    return Number(this.pane('pane_pid'));
  }

  kill(): void {
    // The server's socket path, asked before it goes: kill-server may leave the file behind.
    const path = spawnSync('tmux', ['-L', this.socket, 'display-message', '-p', '#{socket_path}'], { encoding: 'utf8' }).stdout.trim();
    spawnSync('tmux', ['-L', this.socket, 'kill-server']);
    if (path !== '') rmSync(path, { force: true });
    rmSync(this.dir, { recursive: true, force: true });
  }

  private tmux(args: readonly string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }
}

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
