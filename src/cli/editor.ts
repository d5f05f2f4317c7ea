import { childProcess } from '../builtins.js';
import { MdclaimError } from '../errors.js';

/** `$VISUAL`, else `$EDITOR`, else `vi`, as most Unix tools choose. */
export function chooseEditor(env: NodeJS.ProcessEnv = process.env): string {
  for (const name of ['VISUAL', 'EDITOR']) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return 'vi';
}

/**
 * Run the editor on `file` and wait for it. Through `sh -c`, as git does, so
 * that `EDITOR="code --wait"` works; the terminal is the editor's. A Ctrl-C
 * reaches the whole foreground group: mdclaim leaves it to the editor (vi
 * ignores it) rather than dying and leaving the editor behind. Throws
 * EDITOR when the editor cannot start or exits with anything but 0.
 */
export function runEditor(editor: string, file: string): Promise<void> {
  const ignore = () => {};
  process.on('SIGINT', ignore);
  process.on('SIGQUIT', ignore);
  return new Promise<void>((resolve, reject) => {
    const child = childProcess().spawn('/bin/sh', ['-c', `${editor} "$@"`, editor, file], { stdio: 'inherit' });
    child.on('error', (err) => reject(new MdclaimError('EDITOR', `cannot run the editor "${editor}": ${err.message}`, { cause: err })));
    child.on('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new MdclaimError('EDITOR', `the editor "${editor}" ${signal ? `was killed by ${signal}` : `exited with status ${code}`}: nothing changed`));
    });
  }).finally(() => {
    process.off('SIGINT', ignore);
    process.off('SIGQUIT', ignore);
  });
}
