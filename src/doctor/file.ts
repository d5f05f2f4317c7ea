import { accessSync, constants, existsSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { lookAlikes } from '../file/look-alikes.js';
import { unclaimable } from '../file/unclaimable-lines.js';
import { listTasks } from '../board/walk.js';
import { toByteString } from '../format/bytes.js';
import { networkFs } from '../platform/network-fs.js';
import { afterFinding, finding, type Finding } from './finding.js';
import { afterProblems } from '../board/after.js';

/** A markdown board: where it is, what it is on, who may write it, and how it reads. */
export function checkFile(path: string, now: number): Finding[] {
  const file = resolve(path);
  const dir = dirname(file);
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    return [finding('board', 'fail', `${path}: no directory ${dir}`, `create it, or give the board's path with --file or MDCLAIM_FILE`)];
  }
  const out: Finding[] = [];
  let exists = true;
  try {
    const st = statSync(file);
    if (!st.isFile()) return [finding('board', 'fail', `${file}: not a regular file`, 'give the board\'s path with --file or MDCLAIM_FILE')];
    // As a claim refuses it (see refuseLinked in storage/file-store.ts).
    if (st.nlink > 1) out.push(finding('board', 'fail', `${file}: has ${st.nlink} hard links, and a replace would split them into separate boards: mdclaim refuses it`, `keep one name: find the others with find / -xdev -samefile ${file}, remove them, and make each a symlink to ${file} (ln -s)`));
    else out.push(finding('board', 'ok', file));
  } catch (err) {
    exists = false;
    out.push(missing(path, file, err));
  }

  const network = networkFs(real, process.platform);
  if (network === null) out.push(finding('file system', 'ok', `${real} is on a local file system`));
  else if (process.env['MDCLAIM_ALLOW_NFS'] === '1') out.push(finding('file system', 'warn', `${real} is on ${network}; allowed by MDCLAIM_ALLOW_NFS=1: a lock taken here does not stop another host`, 'keep every claimer on this host, or move the board to PostgreSQL'));
  else out.push(finding('file system', 'fail', `${real} is on ${network}, where file locks may not exclude other hosts: mdclaim refuses it`, 'move the board to a local disk, or to PostgreSQL for several hosts (or MDCLAIM_ALLOW_NFS=1 if every claimer runs on this host)'));

  out.push(permissions(real, exists ? file : null));
  if (exists) out.push(...reading(file, now));
  return out;
}

/** Why the board cannot be opened, and a fix that works for that case. */
function missing(path: string, file: string, err: unknown): Finding {
  if ((err as NodeJS.ErrnoException).code === 'ELOOP') {
    return finding('board', 'fail', `${file}: a loop of symlinks, which leads to no file`, `point it at the board: ln -sfn /path/to/tasks.md ${path}; or remove it (rm ${path}) and run npx mdclaim init --file ${path}`);
  }
  let link: string | null = null;
  try {
    link = readlinkSync(file);
  } catch {
    // Not a symlink: nothing there.
  }
  if (link !== null) {
    const target = resolve(dirname(file), link);
    const mkdir = existsSync(dirname(target)) ? '' : `mkdir -p ${dirname(target)} && `;
    return finding('board', 'fail', `${file}: a symlink to ${link}, which does not exist`, `point it at the board (ln -sfn /path/to/tasks.md ${path}), or create its target: ${mkdir}npx mdclaim init --file ${target}`);
  }
  return finding('board', 'fail', `${file}: no such file`, `npx mdclaim init --file ${path}, or give the board's path with --file or MDCLAIM_FILE`);
}

/** A claim writes the board, and creates temp files (and, with the mkdir lock, lock directories) beside it. */
function permissions(dir: string, file: string | null): Finding {
  const can = (p: string, mode: number) => {
    try {
      accessSync(p, mode);
      return true;
    } catch {
      return false;
    }
  };
  if (!can(dir, constants.W_OK | constants.X_OK)) return finding('permissions', 'fail', `cannot create files in ${dir}: a write replacing the board and the mkdir lock need to`, `give this user write access to ${dir}`);
  if (file !== null && !can(file, constants.R_OK | constants.W_OK)) return finding('permissions', 'fail', `cannot read and write ${file}`, `give this user read and write access to ${file}`);
  return finding('permissions', 'ok', `this user may write ${file ?? dir} and create files beside it`);
}

/** What a claim would meet in the board's text: tasks the board refuses to claim, and lines that look like tasks but are none. */
function reading(file: string, now: number): Finding[] {
  const src = toByteString(readFileSync(file));
  const tasks = listTasks(src);
  const open = tasks.filter((t) => t.status === 'open' || t.status === 'blocked').length;
  const out = [finding('reading', 'ok', `${tasks.length} task${tasks.length === 1 ? '' : 's'} read, ${open} open or waiting`)];
  for (const u of unclaimable(src, now)) out.push(finding('reading', 'fail', `${file}:${u.line}: a claim is refused: ${u.message}`, 'fix the line: next passes over it, so no claimer will ever run it'));
  for (const p of afterProblems(tasks)) out.push(afterFinding(`${file}:${p.task.line}`, p.reason));
  const text = readFileSync(file, 'utf8');
  for (const l of lookAlikes(text, tasks)) out.push(finding('reading', 'warn', `${file}:${l.line}: looks like a task but is not one: ${l.why}`, 'write it as a task line (docs/FORMAT.md), if it is meant as one'));
  return out;
}
