import { redactUrl } from '../pg/redact.js';

/**
 * `ps` shows a process's arguments to every user of the machine: when one is
 * a URL with a password (`-f postgres://u:pw@h/db`, `--file=…`), the process
 * retitles itself with the password hidden, as redactUrl shows it.
 */
export function hidePasswordsFromTitle(argv: readonly string[]): void {
  const shown = argv.map(redactArg);
  if (shown.every((a, i) => a === argv[i])) return;
  try {
    process.title = ['mdclaim', ...shown].join(' ');
  } catch {
    // A platform that cannot retitle a process has nothing more to hide here.
  }
}

function redactArg(arg: string): string {
  const flag = /^(--?[A-Za-z][\w-]*=)(.*)$/s.exec(arg);
  return flag ? flag[1]! + redactUrl(flag[2]!) : redactUrl(arg);
}
