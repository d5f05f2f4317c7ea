import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { errorReport, MdclaimError } from '../../errors.js';
import { has } from '../args.js';
import { chooseEditor, runEditor } from '../editor.js';
import { EXIT } from '../exit.js';
import { printJson } from '../output.js';
import { fileBoard } from './kind.js';
import type { Command } from './types.js';

/**
 * Edit a private copy of the board, not the board: claimers keep running
 * while a person takes minutes. On save the copy is merged into the board as
 * it is then (outside the lock, applied under it: see applyEdit); where both
 * changed one task nothing is written and the person's copy is kept beside the board.
 */
export const edit: Command = async (any, p, io) => {
  const board = fileBoard(any, 'edit', 'mdclaim export --file URL > tasks.md, edit it, mdclaim import tasks.md --to URL --replace');
  const snapshot = await board.snapshot();
  // A directory only we can enter (mkdtemp makes it 0700), the copy 0600, named like the board so the editor knows it is markdown.
  const dir = privately(() => mkdtempSync(join(tmpdir(), 'mdclaim-edit-')), board.path);
  let keep = false;
  try {
    const copy = join(dir, basename(board.path));
    privately(() => writeFileSync(copy, snapshot, { mode: 0o600, flag: 'wx' }), board.path);
    await runEditor(chooseEditor(), copy);
    let mine: Buffer;
    try {
      mine = readFileSync(copy);
    } catch (err) {
      throw new MdclaimError('EDITOR', `the copy being edited (${copy}) is gone: nothing changed`, { cause: err });
    }
    if (mine.equals(snapshot)) return say(p, io, { changed: false, kept: 0 }, `no changes: ${board.path} is as it was`);

    const r = await board.applyEdit(snapshot, mine);
    if (r.merged) {
      const kept = r.kept > 0 ? ` (kept ${r.kept} change${r.kept === 1 ? '' : 's'} made on the board meanwhile)` : '';
      return say(p, io, { changed: r.changed, kept: r.kept }, r.changed ? `merged your edit into ${board.path}${kept}` : `no changes: ${board.path} already reads as your copy`);
    }
    let saved: string;
    try {
      saved = saveBeside(board.path, mine);
    } catch (err) {
      // Never lose the person's work: leave it where the editor had it.
      keep = true;
      io.err(`mdclaim: ${(err as Error).message}`);
      saved = copy;
    }
    for (const c of r.conflicts) io.err(errorReport(new MdclaimError('CONFLICT', c.message)).line);
    io.err(`your copy is saved as ${saved}; ${board.path} is unchanged`);
    if (has(p, 'json')) {
      const message = `${r.conflicts.length} conflicting change${r.conflicts.length === 1 ? '' : 's'}; your copy is saved as ${saved}`;
      printJson(io, { error: { code: 'CONFLICT', message, conflicts: r.conflicts, copy: saved } });
    }
    return EXIT.CONFLICT;
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
};

/** Make the private copy, or say in one IO line why TMPDIR will not hold it: nothing was edited yet. */
function privately<T>(make: () => T, board: string): T {
  try {
    return make();
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'ENOENT' ? 'no such directory' : e.code === 'ENOTDIR' ? 'not a directory' : (e.code ?? e.message);
    throw new MdclaimError('IO', `cannot make a private copy to edit in ${tmpdir()} (TMPDIR): ${why}; ${board} is unchanged`, { file: tmpdir(), cause: err });
  }
}

function say(p: Parameters<Command>[1], io: Parameters<Command>[2], doc: { changed: boolean; kept: number }, line: string): number {
  if (has(p, 'json')) printJson(io, doc);
  else io.out(line);
  return EXIT.OK;
}

/** `tasks.md.edit-20261130T040629Z.md` beside the board, never over an existing file. */
function saveBeside(board: string, bytes: Buffer): string {
  const stamp = new Date().toISOString().slice(0, 19).replace(/[-:]/g, '') + 'Z';
  for (let n = 1; ; n++) {
    const name = `${board}.edit-${stamp}${n === 1 ? '' : `-${n}`}.md`;
    try {
      writeFileSync(name, bytes, { mode: 0o600, flag: 'wx' });
      return name;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new MdclaimError('IO', `cannot save your copy beside ${board}: ${(err as Error).message}`, { file: name, cause: err });
      }
    }
  }
}
