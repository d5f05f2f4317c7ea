import { pathsBase } from '../../board/capabilities.js';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { MdclaimError, usage } from '../../errors.js';
import { EXIT } from '../exit.js';
import { namesWritten } from '../../platform/followed-path.js';
import { heldLinks } from '../../platform/same-file.js';
import { asker, printJson } from '../output.js';
import type { Command } from './types.js';

/** The part of an editor hook's JSON the guard reads (Claude Code's PreToolUse input). */
interface HookInput {
  tool_name?: unknown;
  tool_input?: { file_path?: unknown; notebook_path?: unknown };
  cwd?: unknown;
}

/**
 * `mdclaim guard`: a PreToolUse hook. Deny (Claude Code's JSON on stdout) the
 * write of a file a live claim of someone else holds; allow (no output, exit
 * 0, so the editor's own permission rules still apply) anything else.
 */
export const guard: Command = async (any, p, io) => {
  const input = readHookInput();
  const target = input.tool_input?.file_path ?? input.tool_input?.notebook_path;
  if (typeof target !== 'string' || target === '') return EXIT.OK;
  const cwd = typeof input.cwd === 'string' ? input.cwd : process.cwd();
  // Paths on the board are relative to its file's directory; a database board's to the project the hook runs in.
  const base = pathsBase(any, cwd);
  // The name written and, through a symlink, the file the kernel would open: both are asked about.
  const names = namesWritten(base, resolve(cwd, target));
  if (names.length === 0) return EXIT.OK;
  // Through a hard link, the held name it shares its file with.
  const held = async () => (await any.paths()).map((h) => h.path);
  names.push(...(await heldLinks(base, [resolve(cwd, target)], held)).filter((n) => !names.includes(n)));
  const path = names[0]!;
  // Without a name, every holder is someone else: a made-up name holds nothing.
  const by = asker(p, 'guard');
  try {
    await any.checkPaths({ by, writes: names });
    return EXIT.OK;
  } catch (err) {
    if (!(err instanceof MdclaimError) || err.code !== 'CONFLICT') throw err;
    const reason = `mdclaim: do not write ${path}: ${err.message}; leave it to them and work on something else`;
    printJson(io, { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } });
    return EXIT.OK;
  }
};

function readHookInput(): HookInput {
  let text: string;
  try {
    text = readFileSync(0, 'utf8');
  } catch (err) {
    throw new MdclaimError('IO', `guard: could not read the hook's JSON on stdin: ${(err as Error).message}`);
  }
  try {
    const doc = JSON.parse(text) as unknown;
    if (typeof doc === 'object' && doc !== null && !Array.isArray(doc)) return doc as HookInput;
  } catch {
    // said below
  }
  throw usage('guard reads the editor hook\'s JSON on stdin, e.g. {"tool_name":"Edit","tool_input":{"file_path":"/abs/src/a.ts"}}');
}
