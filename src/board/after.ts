import { afterItem, parseAfter } from '../format/after.js';
import { bytes } from '../format/bytes.js';
import { hashNumber, idForm, textHashNumber, trackerKey } from '../format/id.js';
import type { Status } from '../format/marker.js';
import { sectionMatches } from '../format/worktree-section.js';
import { idsStartingWith, isPrefix, noTask, resolvePrefix } from './resolve-id.js';

// What a task waits for (`{after: …}`), resolved on the board it is on: the
// input blockerOf reads for its after rule, built once per read, on every
// board from the same facts (ids, texts, sections, statuses). PostgreSQL
// states the same resolution in SQL (migration 9, mdclaim.after_blocker).

/** The facts about a task the after rule reads. */
export interface DepTask {
  id: string;
  text: string;
  status: Status;
  section?: string | undefined;
  by?: string | undefined;
  /** The hash of its text (textHashNumber) and the tracker key it starts with, where the caller has them (else read from text). */
  readonly hash?: number;
  readonly key?: string | null;
}

/** What one item names: tasks (by index, in board order), or why it names none to wait for. */
export type Resolved = { ref: string; tasks: number[] } | { ref: string; problem: string };

/** The after rule's answer for a task: a task it waits for (the first not done), or why its line cannot be claimed. */
export type AfterAnswer = { kind: 'wait'; task: number } | { kind: 'line'; reason: string };

/** The after rule's inputs for a board's tasks, in board order: null when no task waits for anything (and no claim pays more). */
export function dependencies(tasks: readonly DepTask[], mayDeclare: (i: number) => boolean = () => true): Dependencies | null {
  let any = false;
  const items = tasks.map((t, i) => {
    const list = mayDeclare(i) ? parseAfter(t.text) : [];
    if (list.length > 0) any = true;
    return list;
  });
  return any ? new Dependencies(tasks, items) : null;
}

export class Dependencies {
  private readonly resolvedOf = new Map<number, Resolved[]>();
  private byHash?: Map<number, number[]>;
  private byKey?: Map<string, number[]>;
  private scc?: Int32Array;

  constructor(readonly tasks: readonly DepTask[], private readonly items: readonly string[][]) {}

  /** Does task `i` declare any `{after: …}`? */
  waits(i: number): boolean {
    return this.items[i]!.length > 0;
  }

  /** Each item of task `i`, resolved. */
  resolved(i: number): Resolved[] {
    let r = this.resolvedOf.get(i);
    if (r === undefined) this.resolvedOf.set(i, (r = this.items[i]!.map((item) => this.resolve(i, item))));
    return r;
  }

  /**
   * The rule: an item that names no task (or several, where it must name one)
   * refuses the line; so does a cycle (a task it waits for waits, in turn, for
   * it); else the first task it waits for that is not done, or null.
   */
  answer(i: number): AfterAnswer | null {
    if (!this.waits(i)) return null;
    const resolved = this.resolved(i);
    for (const r of resolved) if ('problem' in r) return { kind: 'line', reason: r.problem };
    const via = this.cycleVia(i);
    if (via !== null) return { kind: 'line', reason: via === i ? 'waits for itself: a cycle' : `waits for ${this.tasks[via]!.id}, which waits for it in turn: a cycle` };
    for (const r of resolved) if ('tasks' in r) for (const j of r.tasks) if (this.tasks[j]!.status !== 'done') return { kind: 'wait', task: j };
    return null;
  }

  /** The first task `i` waits for that waits, through any number of tasks, for `i`; null when none does. */
  cycleVia(i: number): number | null {
    const scc = this.components();
    for (const r of this.resolved(i)) if ('tasks' in r) for (const j of r.tasks) if (scc[j] === scc[i]) return j;
    return null;
  }

  private resolve(i: number, ref: string): Resolved {
    const item = afterItem(ref);
    if (item.kind === 'section') {
      const tasks: number[] = [];
      this.tasks.forEach((t, j) => void (j !== i && sectionMatches(t.section, item.name) && tasks.push(j)));
      return tasks.length > 0 ? { ref, tasks } : { ref, problem: `waits for ${ref}, which holds no other task` };
    }
    const id = item.id;
    const form = idForm(id);
    if (form === 'hash') return this.named(ref, this.hashes().get(hashNumber(id)));
    if (form === 'key') {
      const tasks = this.keys().get(id) ?? [];
      return tasks.length > 1 ? { ref, problem: `waits for ${ref}, which is on ${tasks.length} tasks: name one by its id` } : this.named(ref, tasks);
    }
    if (!isPrefix(id)) return this.named(ref, undefined);
    const ids = idsStartingWith(id, this.tasks);
    if (ids.size > 1) return { ref, problem: `waits for ${ref}, the start of ${ids.size} ids: use more of one` };
    const [whole] = ids.keys();
    if (whole === undefined) return this.named(ref, undefined);
    return this.named(ref, idForm(whole) === 'hash' ? this.hashes().get(hashNumber(whole)) : this.keys().get(whole));
  }

  private named(ref: string, tasks: number[] | undefined): Resolved {
    return tasks === undefined || tasks.length === 0 ? { ref, problem: `waits for ${ref}, which names no task` } : { ref, tasks };
  }

  /** Every task by the hash of its text (what a hash id answers to, keyed or not). */
  private hashes(): Map<number, number[]> {
    return (this.byHash ??= group(this.tasks, (t) => t.hash ?? (idForm(t.id) === 'hash' ? hashNumber(t.id) : textOf(t, textHashNumber))));
  }

  /** Every task by the tracker key its text starts with. */
  private keys(): Map<string, number[]> {
    return (this.byKey ??= group(this.tasks, (t) => (t.key !== undefined ? t.key : textOf(t, trackerKey))));
  }

  /** Strongly connected components of the graph of what waits for what (Tarjan's, without recursion). */
  private components(): Int32Array {
    if (this.scc !== undefined) return this.scc;
    const n = this.tasks.length;
    const index = new Int32Array(n).fill(-1);
    const low = new Int32Array(n);
    const scc = new Int32Array(n).fill(-1);
    const onStack = new Uint8Array(n);
    const stack: number[] = [];
    const edges = (v: number) => (this.waits(v) ? this.resolved(v).flatMap((r) => ('tasks' in r ? r.tasks : [])) : []);
    let next = 0;
    let comp = 0;
    for (let root = 0; root < n; root++) {
      if (index[root] !== -1) continue;
      const work: Array<{ v: number; out: number[]; k: number }> = [{ v: root, out: edges(root), k: 0 }];
      index[root] = low[root] = next++;
      stack.push(root);
      onStack[root] = 1;
      while (work.length > 0) {
        const top = work[work.length - 1]!;
        if (top.k < top.out.length) {
          const w = top.out[top.k++]!;
          if (index[w] === -1) {
            index[w] = low[w] = next++;
            stack.push(w);
            onStack[w] = 1;
            work.push({ v: w, out: edges(w), k: 0 });
          } else if (onStack[w]) low[top.v] = Math.min(low[top.v]!, index[w]!);
          continue;
        }
        work.pop();
        if (work.length > 0) low[work[work.length - 1]!.v] = Math.min(low[work[work.length - 1]!.v]!, low[top.v]!);
        if (low[top.v] === index[top.v]) {
          let w: number;
          do {
            w = stack.pop()!;
            onStack[w] = 0;
            scc[w] = comp;
          } while (w !== top.v);
          comp++;
        }
      }
    }
    return (this.scc = scc);
  }
}

function textOf<T>(t: DepTask, f: (src: string, start: number, end: number) => T): T {
  const b = bytes(t.text);
  return f(b, 0, b.length);
}

function group<K>(tasks: readonly DepTask[], keyOf: (t: DepTask) => K | null): Map<K, number[]> {
  const out = new Map<K, number[]>();
  tasks.forEach((t, i) => {
    const k = keyOf(t);
    if (k === null) return;
    const list = out.get(k);
    if (list === undefined) out.set(k, [i]);
    else list.push(i);
  });
  return out;
}

/**
 * Every task still to run whose `{after: …}` keeps its line from being
 * claimed (an item that names no task, a cycle), with why: what doctor names.
 */
export function afterProblems<T extends DepTask & { line: number }>(tasks: readonly T[]): { task: T; reason: string }[] {
  const deps = dependencies(tasks);
  if (deps === null) return [];
  const out: { task: T; reason: string }[] = [];
  tasks.forEach((t, i) => {
    if (t.status === 'done' || t.status === 'failed') return;
    const a = deps.answer(i);
    if (a?.kind === 'line') out.push({ task: t, reason: a.reason });
  });
  return out;
}

/**
 * The whole ids `refs` name on a board, as `add --after` writes them: a
 * whole id as given, the start of one resolved as the CLI resolves it (so a
 * task added later cannot make it ambiguous), `section NAME` as given.
 */
export function afterIds(tasks: readonly { id: string; text: string }[], refs: readonly string[]): string[] {
  return refs.map((ref) => {
    if (afterItem(ref).kind === 'section') return ref;
    if (tasks.some((t) => t.id === ref)) return ref;
    if (isPrefix(ref)) return resolvePrefix(ref, tasks);
    throw noTask(ref);
  });
}

/** `text` with what it waits for written on it (`{after: …}`, see afterIds); `text` itself when `refs` is empty. */
export async function textWaiting(text: string, refs: readonly string[], tasks: () => Promise<readonly { id: string; text: string }[]>): Promise<string> {
  return refs.length === 0 ? text : `${text} {after: ${afterIds(await tasks(), refs).join(', ')}}`;
}
