import type { PgBoard } from 'mdclaim';
import { CLAIMED, clock, progress, stamp, toMs } from './util.js';

// The PostgreSQL board's `next` on two shapes of board that a plain claimer never meets: claims of others spread over it, and ⏰ tasks above the first open one.

/** A slow board still ends its shape case: past this much claiming, it stops at the claims it has (at least MIN_SHAPE_CLAIMS). */
const SHAPE_BUDGET_MS = 60_000;
const MIN_SHAPE_CLAIMS = 5;

/** `next` latency on a board of the given text; each claimed task must pass `fair`. */
export async function shape(board: PgBoard, name: string, text: string, claims: number, fair: (t: string) => boolean): Promise<number[]> {
  await board.importDocument(Buffer.from(text), { replace: true });
  const lat: number[] = [];
  for (let i = 0; i < claims; i++) {
    if (i >= MIN_SHAPE_CLAIMS && lat.reduce((s, x) => s + x, 0) > SHAPE_BUDGET_MS) {
      progress(`postgres: ${name} board: stopped after ${i} claims, past ${SHAPE_BUDGET_MS / 1000} s of claiming`);
      break;
    }
    const t0 = clock();
    const got = await board.next({ by: 'bench' });
    lat.push(toMs(clock() - t0));
    if (!got || !fair(got.text)) throw new Error(`postgres: ${name} board: claim ${i + 1} took ${got ? `"${got.text}"` : 'nothing'}`);
  }
  return lat;
}

/** Every other task claimed by another, with a day's lease: the claimable ones are spread over the whole board. */
export function halfClaimedText(n: number): string {
  const held = `[${CLAIMED}, other, ${stamp(Date.now())}, 24h]`;
  const lines = ['# Tasks', ''];
  for (let i = 1; i <= n; i++) lines.push(`- ${i % 2 === 1 ? held : '[ ]'} task ${i}`);
  return lines.join('\n') + '\n';
}

/** The first `n/2` tasks claimed by another, with a day's lease; the rest open. */
export function firstHalfClaimedText(n: number): string {
  const held = `[${CLAIMED}, other, ${stamp(Date.now())}, 24h]`;
  const lines = ['# Tasks', ''];
  for (let i = 1; i <= n; i++) lines.push(`- ${i <= n / 2 ? held : '[ ]'} task ${i}`);
  return lines.join('\n') + '\n';
}

/** Section A: a task claimed by another, then `blocked` ⏰ tasks waiting on it; section B: `open` open tasks. */
export function blockedAboveText(blocked: number, open: number): string {
  const lines = ['# Tasks', '', '## A', '', `- [${CLAIMED}, other, ${stamp(Date.now())}, 24h] first of A`];
  for (let i = 1; i <= blocked; i++) lines.push(`- [⏰] waits ${i}`);
  lines.push('', '## B', '');
  for (let i = 1; i <= open; i++) lines.push(`- [ ] task ${i}`);
  return lines.join('\n') + '\n';
}
