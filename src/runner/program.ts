import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

// The shell's own search path when the environment has none (dash's).
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Why `name` cannot be run from `cwd` with the PATH of `env`, or undefined
 * when it can. The command is started by a shell's `exec`, which reports a
 * missing program only as exit 127; asking first keeps a command that cannot
 * start the runner's mistake (the task goes back) rather than the task's
 * failure. The search is the shell's: a name with a `/` is a path from
 * `cwd`, any other is looked up in each PATH directory (an empty entry is
 * `cwd`). A missing path is named as it was looked for, from `cwd`.
 */
export function cannotRun(name: string, env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  if (name === '') return 'no program named';
  const candidates = name.includes('/') ? [resolve(cwd, name)] : (env['PATH'] ?? DEFAULT_PATH).split(':').map((dir) => resolve(cwd, dir, name));
  let found = false;
  for (const path of candidates) {
    if (!isFile(path)) continue;
    found = true;
    try {
      accessSync(path, constants.X_OK);
      return undefined;
    } catch {
      // not executable by us: the shell would go on looking too
    }
  }
  return found ? 'not an executable file' : name.includes('/') ? `no such file: ${candidates[0]}` : 'not found in PATH';
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The command as it meant where the runner was started: a program named by a
 * relative path (`./agent.sh`, `bin/work`) made absolute from `cwd`, since the
 * command may run elsewhere (its worktree); a name looked up in PATH stays.
 */
export function fromRunnerDir(command: readonly string[], cwd: string): string[] {
  const [program, ...args] = command;
  return program!.includes('/') && !isAbsolute(program!) ? [resolve(cwd, program!), ...args] : [...command];
}
