import type { ChildProcess } from 'node:child_process';
import { childProcess } from '../../builtins.js';
import { constants } from 'node:os';
import { usage } from '../../errors.js';
import { refuseCommandOn } from '../../platform/windows.js';
import { has } from '../args.js';
import type { Command } from './types.js';
import { fileBoard } from './kind.js';

// The signals a terminal, a supervisor or `kill` sends to stop a command: passed on to it.
const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * `mdclaim lock [--shared] -- <command> [args…]`: run the command while
 * holding the board's lock, the same lock every mdclaim operation takes (the
 * board's directory), so it holds even when the command replaces the file.
 * The command's stdio are ours; its exit status is ours (128+n when signal n
 * killed it). The lock is let go when it exits, whatever it did.
 */
export const lock: Command = async (any, p) => {
  refuseCommandOn(process.platform, 'lock');
  const board = fileBoard(any, 'lock', 'none is needed: every change is one statement');
  const [cmd, ...args] = p.rest!;
  const release = await board.hold({ shared: has(p, 'shared') });
  try {
    return await runForwarding(cmd!, args);
  } finally {
    release();
  }
};

function runForwarding(cmd: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    // Listening before the command starts: a signal sent the moment it is
    // running must not find mdclaim with the default action (death, the command orphaned).
    let child: ChildProcess | undefined;
    const early: NodeJS.Signals[] = [];
    const forward = (signal: NodeJS.Signals) => (child ? child.kill(signal) : early.push(signal));
    for (const s of FORWARDED) process.on(s, forward);
    const stop = () => {
      for (const s of FORWARDED) process.off(s, forward);
    };
    child = childProcess().spawn(cmd, args, { stdio: 'inherit' });
    for (const s of early) child.kill(s);
    child.on('error', (err) => {
      stop();
      const code = (err as NodeJS.ErrnoException).code;
      reject(usage(`cannot run "${cmd}": ${code === 'ENOENT' ? 'no such command' : code === 'EACCES' ? 'permission denied' : err.message}`));
    });
    child.on('exit', (code, signal) => {
      stop();
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0));
    });
  });
}
