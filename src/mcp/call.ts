import { pathsBase } from '../board/capabilities.js';
import { checkMaxAttempts } from '../board/checks.js';
import { selectTasks } from '../board/select.js';
import { textWaiting } from '../board/after.js';
import { listedJson, listStanding } from '../board/standing.js';
import type { TaskBoard } from '../board/types.js';
import { errorReport, usage } from '../errors.js';
import type { Session } from './session.js';
import { TOOLS } from './tools.js';
import { namesTouched } from '../platform/same-file.js';

/** A tool's answer: the JSON `--json` prints, as structured content and as text; a refusal is the CLI's one line. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

type Args = Record<string, unknown>;

const KNOWN = new Map(TOOLS.map((t) => [t.name, new Set(Object.keys(t.inputSchema.properties))]));

/** Run one tool call on the session; never throws. */
export async function callTool(session: Session, board: TaskBoard, name: string, args: Args | undefined): Promise<ToolResult> {
  try {
    // Tracked: a session that ends waits for the call, so a claim it made is released too.
    return answer(await session.track(() => dispatch(session, board, name, check(name, args ?? {}))));
  } catch (err) {
    const { code, message, holder, line } = errorReport(err);
    return { content: [{ type: 'text', text: line }], structuredContent: { error: { code, message, ...(holder === undefined ? {} : { holder }) } }, isError: true };
  }
}

function answer(doc: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(doc) }], structuredContent: doc };
}

async function dispatch(s: Session, board: TaskBoard, name: string, a: Args): Promise<Record<string, unknown>> {
  switch (name) {
    case 'next':
      return {
        task: await s.next({
          ...opt(a, 'tags', list(a, 'tags')), ...opt(a, 'section', str(a, 'section')), ...opt(a, 'lease', str(a, 'lease')), ...budgetOf(a),
        }),
      };
    case 'claim':
      return { task: await s.claim(id(a), str(a, 'lease'), budgetOf(a).maxAttempts) };
    case 'heartbeat':
      return { task: await s.heartbeat(id(a)) };
    case 'done':
      return { task: await s.done(id(a), str(a, 'commit')) };
    case 'fail':
      return { task: await s.fail(id(a), str(a, 'reason')) };
    case 'release':
      return { task: await s.release(id(a)) };
    case 'retry':
      return { task: await s.retry(id(a), required(a, 'delay')) };
    case 'list': {
      const filter = { ...opt(a, 'status', str(a, 'status')), ...opt(a, 'section', str(a, 'section')), tags: a['tag'] === undefined ? [] : [str(a, 'tag')!] };
      selectTasks([], filter);
      // As list --json: each task with claimable and how it stands, judged on the whole board.
      return { tasks: (await listStanding(board, filter)).map(listedJson) };
    }
    case 'add': {
      // As add --after: the tasks it waits for by whole id, written on its line.
      const text = await textWaiting(required(a, 'text'), list(a, 'after') ?? [], () => board.list());
      return { task: await board.add(text, opt(a, 'section', str(a, 'section'))) };
    }
    case 'paths_check': {
      // As guard and paths check ask: every name a write through a symlink or a hard link touches (a file board's paths are its directory's; a database board's the server's working directory's).
      const base = pathsBase(board, process.cwd());
      const held = async () => (await board.paths()).map((h) => h.path);
      const follow = async (paths: string[] | undefined) => paths && (await namesTouched(base, paths, held));
      const [writes, reads] = [await follow(list(a, 'writes')), await follow(list(a, 'reads'))];
      return { paths: await s.checkPaths({ ...opt(a, 'writes', writes), ...opt(a, 'reads', reads) }) };
    }
    case 'paths_lock':
      return { task: await s.lockPaths(id(a), { ...opt(a, 'writes', list(a, 'writes')), ...opt(a, 'reads', list(a, 'reads')) }) };
    case 'paths_unlock':
      return { task: await s.unlockPaths(id(a), list(a, 'paths')) };
    default:
      throw usage(`unknown tool "${name}"`);
  }
}

/** Arguments a tool does not take are refused, as the CLI refuses a flag a command does not take. */
function check(name: string, a: Args): Args {
  const known = KNOWN.get(name);
  if (known === undefined) throw usage(`unknown tool "${name}" (tools: ${[...KNOWN.keys()].join(', ')})`);
  if (typeof a !== 'object' || a === null || Array.isArray(a)) throw usage(`${name}: arguments must be an object`);
  for (const key of Object.keys(a)) if (!known.has(key)) throw usage(`${name} does not take "${key}" (it takes: ${[...known].join(', ') || 'nothing'})`);
  return a;
}

const opt = <K extends string, V>(a: Args, key: K, value: V | undefined): { [k in K]?: V } => (a[key] === undefined || value === undefined ? {} : ({ [key]: value } as { [k in K]: V }));

function str(a: Args, key: string): string | undefined {
  const v = a[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw usage(`${key} must be a string, got ${typeof v}`);
  return v;
}

function required(a: Args, key: string): string {
  const v = str(a, key);
  if (v === undefined || v === '') throw usage(`${key} is required`);
  return v;
}

const id = (a: Args): string => required(a, 'id');

/** The attempts budget (`max_attempts`), checked as the board checks it. */
function budgetOf(a: Args): { maxAttempts?: number } {
  return a['max_attempts'] === undefined ? {} : { maxAttempts: checkMaxAttempts(a['max_attempts'], 'max_attempts') };
}

function list(a: Args, key: string): string[] | undefined {
  const v = a[key];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw usage(`${key} must be an array of strings`);
  return v as string[];
}
