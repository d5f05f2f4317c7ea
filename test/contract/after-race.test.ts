import { writeFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { textHash } from '../../src/format/id.js';
import { parseTasks } from '../../src/index.js';
import { fixture, lines, startTogether } from '../helpers/procs.js';
import { describeKinds } from './kinds.js';

// Racing workers on a board whose tasks unblock one another as they finish:
// each task is claimed exactly once, and never before every task it waits for is done.

const PROCS = 12;
const LAYERS = 5;
const WIDTH = 8;

const hash = (text: string) => textHash(text, 0, text.length);

/**
 * Layers of tasks, each task of a layer waiting for two of the layer below by id (one by the start of
 * its id), the top layer's first task for the whole bottom section; later layers first in the file,
 * so file order alone would run every task too soon.
 */
function layered(): { doc: string; deps: Map<string, string[]> } {
  const deps = new Map<string, string[]>();
  const text = (l: number, i: number) => `layer ${l} task ${i}`;
  const sections: string[] = [];
  for (let l = LAYERS - 1; l >= 0; l--) {
    const tasks = Array.from({ length: WIDTH }, (_, i) => {
      if (l === 0) {
        deps.set(hash(text(l, i)), []);
        return `- [ ] ${text(l, i)}`;
      }
      const a = (i * 3) % WIDTH;
      const b = (i * 5 + 1) % WIDTH;
      const on = [hash(text(l - 1, a)), hash(text(l - 1, b))];
      const items = [on[0]!, on[1]!.slice(0, 8)];
      if (l === LAYERS - 1 && i === 0) {
        items.push('section Layer 0');
        for (let k = 0; k < WIDTH; k++) on.push(hash(text(0, k)));
      }
      deps.set(hash(text(l, i)), on);
      return `- [ ] ${text(l, i)} {after: ${items.join(', ')}}`;
    });
    sections.push(`## Layer ${l}\n\n${tasks.join('\n')}\n`);
  }
  return { doc: `# Plan\n\n${sections.join('\n')}`, deps };
}

describeKinds('racing workers on the $name board whose tasks wait for one another', (kind) => {
  it(`runs each task exactly once across ${PROCS} processes, never before what it waits for is done`, async () => {
    const { doc, deps } = layered();
    const b = await kind.make(doc);
    // The board's own record of the order of its changes, made under its lock (a file board's journal).
    if (b.board.kind === 'file') writeFileSync(`${b.location}.history.jsonl`, '');
    const runs = await startTogether(Array.from({ length: PROCS }, (_, i) => ({ script: fixture('after-worker.mjs'), args: [b.location, `w${i}`] })));
    const exits = await Promise.all(runs.map((r) => r.done));
    expect(exits.map((e) => [e.code, e.stderr, e.stdout.includes('stuck')])).toEqual(exits.map(() => [0, '', false]));
    const claimed = new Map<string, number[]>();
    const finishing = new Map<string, number>();
    for (const e of exits) {
      for (const l of lines(e.stdout, 'claimed')) {
        const [id, at] = l.split(' ');
        claimed.set(id!, [...(claimed.get(id!) ?? []), Number(at)]);
      }
      for (const l of lines(e.stdout, 'finishing')) finishing.set(l.split(' ')[0]!, Number(l.split(' ')[1]));
    }
    // Each task exactly once.
    expect([...claimed.values()].filter((at) => at.length !== 1)).toEqual([]);
    expect(new Set(claimed.keys())).toEqual(new Set(deps.keys()));
    // Every task it waits for was being finished before its claim came back.
    const early: string[] = [];
    for (const [id, on] of deps) for (const d of on) if (!(finishing.get(d)! < claimed.get(id)![0]!)) early.push(`${id} before ${d}`);
    expect(early).toEqual([]);
    // And by the board's own order: every task it waits for was done before its claim was made.
    const events = await b.board.history();
    const seqOf = (event: string) => new Map(events.filter((e) => e.event === event).map((e) => [e.id, e.seq]));
    const [done, claims] = [seqOf('done'), seqOf('claimed')];
    const before: string[] = [];
    for (const [id, on] of deps) for (const d of on) if (!(done.get(d)! < claims.get(id)!)) before.push(`${id} claimed before ${d} was done`);
    expect(done.size).toBe(LAYERS * WIDTH);
    expect(before).toEqual([]);
    expect(parseTasks((await b.bytes()).toString()).map((t) => t.status)).toEqual(Array.from({ length: LAYERS * WIDTH }, () => 'done'));
  }, 300_000);
});
