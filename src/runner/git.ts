import { MdclaimError } from '../errors.js';
import { childProcess } from '../builtins.js';
import { sleep } from '../storage/deadline.js';

/** What one git command said: its status and its output, never thrown for a non-zero status. */
export interface GitResult {
  code: number;
  out: string;
  err: string;
}

/** How one git command runs: `input` on its stdin (else none), `env` instead of this process's environment (a command's, so its author is the task's). */
export interface GitOptions {
  input?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * The one way mdclaim runs git, with one rule for its failures: `git`
 * resolves with what git said (its status, never thrown), and every caller
 * reads `code`; `gitOut` throws WORKTREE for a failure. A failure a caller
 * tolerates on purpose says so where it does.
 *
 * Git's prompts are off (no terminal to answer them) and its messages in
 * English, since a few of them are read: a lock another git holds. It takes
 * none of git's optional locks (GIT_OPTIONAL_LOCKS=0): a `git status` would
 * otherwise write the refreshed index under `index.lock`, and an agent
 * committing in that worktree at that moment would fail on the lock.
 */
export function git(cwd: string, args: readonly string[], options: GitOptions = {}): Promise<GitResult> {
  return new Promise((resolve) => {
    const env = { ...(options.env ?? process.env), GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C', LANGUAGE: 'C' };
    // A hook or an editor git starts gets no stdin to wait on.
    const child = childProcess().execFile('git', [...args], { cwd, env, maxBuffer: 64 << 20, timeout: 10 * 60_000 }, (err, out, errOut) => {
      const missing = (err as NodeJS.ErrnoException | null)?.code === 'ENOENT';
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
      resolve({ code, out: String(out), err: missing ? 'git: not found in PATH' : String(errOut) });
    });
    // `input`, when given, is its stdin (git patch-id reads a diff there). A git that exits without reading it is judged by its status, not by the closed pipe.
    child.stdin?.on('error', () => {});
    child.stdin?.end(options.input);
  });
}

/** The last line git wrote to stderr, for a one-line message. */
export function lastLine(text: string): string {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  return lines.at(-1) ?? '';
}

/** git's stdout when it succeeds (a lock another git holds waited out); else a WORKTREE error with what it said, in one line. */
export async function gitOut(cwd: string, args: readonly string[], options: GitOptions = {}): Promise<string> {
  const r = await retryingLocks(() => git(cwd, args, options));
  if (r.code !== 0) throw new MdclaimError('WORKTREE', `git ${args.join(' ')} failed in ${cwd}: ${lastLine(r.err) || `exit ${r.code}`}`);
  return r.out.trim();
}

/**
 * Did git fail only because another git holds a lock it needs (`index.lock`,
 * a ref's lock, `config.lock`, `packed-refs.lock`)? Such a failure passes:
 * two `git worktree add -b` at once contend on the repository's own files.
 */
export function isLockContention(err: string): boolean {
  return /\.lock'?:? File exists|Unable to create '[^']*\.lock'|cannot lock ref|could not lock config file|unable to lock|Another git process seems to be running/i.test(err);
}

/** How long a git command is retried while another git holds a lock it needs. */
const LOCK_RETRY_MS = 60_000;

/** Run a git command again while it fails for a lock another git holds, with a growing pause (up to a minute in all). */
export async function retryingLocks(run: () => Promise<GitResult>): Promise<GitResult> {
  const until = Date.now() + LOCK_RETRY_MS;
  for (let pause = 20; ; pause = Math.min(pause * 2, 500)) {
    const r = await run();
    if (r.code === 0 || !isLockContention(r.err) || Date.now() > until) return r;
    await sleep(pause * (0.5 + Math.random()));
  }
}
