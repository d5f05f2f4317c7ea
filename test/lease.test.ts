import { named } from '../src/format/named.js';
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../src/board/duration.js';
import { toByteString } from '../src/format/bytes.js';
import { formatDuration } from '../src/format/duration.js';
import { parseMarker, renderMarker } from '../src/format/marker.js';
import { openBoard, parseTasks } from '../src/index.js';
import { mdclaim } from './helpers/cli.js';
import { errorOf } from './helpers/errors.js';
import { boardFile, bytesOf, read } from './helpers/tmp.js';

const at = (iso: string) => () => Date.parse(iso);
const marker = (s: string) => parseMarker(toByteString(s), 0);
const T = '2026-11-30T04:06:29Z';

describe('a lease on the claim line', () => {
  it.each([
    [`[🟡, a, ${T}, 2h] x`, 7_200_000],
    [`[🟡, a, ${T}, 90m] x`, 5_400_000],
    [`[🟡, a, ${T}, 1500ms] x`, 1500],
    [`[🟡, a, ${T}, 1.5h] x`, 5_400_000],
    [`[🟡, a, 2026-11-30T04:06:29.5+02:00, 1d] x`, 86_400_000],
  ])('reads %s', (text, leaseMs) => {
    expect(marker(text)).toMatchObject({ status: 'claimed', by: 'a', leaseMs });
  });

  it.each([`[🟡, a, 2h] x`, `[🟡, a, ${T}, soon] x`, `[🟡, a, ${T}, 2h, 3h] x`, `[🟡, a, ${T}, 36525.1d] x`, `[🟡, a, ${T}, 2h]x`])('does not take %s for a marker', (text) => {
    expect(marker(text)).toBeNull();
  });

  it('writes the lease only when it is not the default 30m, in normal form', () => {
    expect(renderMarker({ status: 'claimed', by: 'a', claimedAt: T, leaseMs: 1_800_000 })).toBe(`[🟡, a, ${T}]`);
    expect(renderMarker({ status: 'claimed', by: 'a', claimedAt: T, leaseMs: 7_200_000 })).toBe(`[🟡, a, ${T}, 2h]`);
    expect([90_000, 5_400_000, 86_400_000, 1500, 0].map(formatDuration)).toEqual(['90s', '90m', '1d', '1500ms', '0s']);
    for (const ms of [1500, 90_000, 7_200_000, 86_400_000 * 3]) expect(marker(renderMarker({ status: 'claimed', by: 'a', claimedAt: T, leaseMs: ms }) + ' t')!.leaseMs).toBe(ms);
  });

  it('shows each timed claim its own lease and when it expires; untimed claims have neither', () => {
    const [a, b, c] = parseTasks(`[🟡, a, ${T}] x\n[🟡, b, ${T}, 2h] y\n[🟡, c] z\n`);
    expect(a).toMatchObject({ lease: '30m', expiresAt: '2026-11-30T04:36:29Z' });
    expect(b).toMatchObject({ lease: '2h', expiresAt: '2026-11-30T06:06:29Z' });
    expect(c!.lease).toBeUndefined();
    expect(c!.expiresAt).toBeUndefined();
  });

  it('does not let a default claimer take over a 2h claim after 31 minutes, and lets anyone take it after 2h', async () => {
    const file = boardFile('- [ ] long job\n');
    let now = Date.parse('2026-11-30T05:00:00Z');
    const board = openBoard(file, { now: () => now });
    const job = (await board.next({ by: 'slow', lease: '2h' }))!;
    expect(job).toMatchObject({ lease: '2h', expiresAt: '2026-11-30T07:00:00Z' });
    expect(read(file)).toBe('- [🟡, slow, 2026-11-30T05:00:00Z, 2h] long job\n');
    now += 31 * 60_000;
    expect(await board.next({ by: 'fast' })).toBeNull();
    expect((await errorOf(board.claim(job.id, { by: 'fast' }))).code).toBe('CONFLICT');
    now = Date.parse('2026-11-30T07:00:00Z');
    expect(await board.next({ by: 'fast' })).toMatchObject({ by: 'fast', lease: '30m' });
  });

  it('refuses --lease under a second on the command line in one line, exit 2, the board untouched', () => {
    const file = boardFile('- [ ] x\n');
    const before = bytesOf(file);
    for (const args of [['next', '--lease', '999ms'], ['next', '--lease', '0s'], ['claim', 'x', '--lease', '500ms']]) {
      const r = mdclaim([...args, '--file', file]);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^error\[USAGE\]: --lease must be at least 1s \(claim times are to the second\), got "\d+m?s"\n$/);
    }
    expect(bytesOf(file).equals(before)).toBe(true);
  });

  it('does not let next --lease 1s take a claim made a second ago', async () => {
    const file = boardFile(`- [🟡, a, ${T}] x\n`);
    const board = openBoard(file, { now: () => Date.parse(T) + 1000 });
    expect(await board.next({ by: 'b', lease: '1s' })).toBeNull();
    expect(read(file)).toBe(`- [🟡, a, ${T}] x\n`);
  });

  it('keeps the lease on a heartbeat', async () => {
    const file = boardFile(`- [🟡, a, ${T}, 2h] x\n`);
    const board = openBoard(file, { now: at('2026-11-30T05:00:00Z') });
    expect(await board.heartbeat((await board.list())[0]!.id, { by: 'a' })).toMatchObject({ lease: '2h', expiresAt: '2026-11-30T07:00:00Z' });
    expect(read(file)).toBe('- [🟡, a, 2026-11-30T05:00:00Z, 2h] x\n');
  });

  it('reaps claims past their own lease without --ttl, and with --ttl also those that old whatever their lease', async () => {
    const text = '- [🟡, short, 2026-11-30T04:50:00Z, 5m] a\n- [🟡, long, 2026-11-30T03:00:00Z, 4h] b\n- [🟡, dflt, 2026-11-30T04:40:00Z] c\n- [🟡, old, 2026-11-30T04:00:00Z] d\n';
    const file = boardFile(text);
    const board = openBoard(file, { now: at('2026-11-30T05:00:00Z') });
    expect((await board.reap({ dryRun: true })).map((t) => t.by)).toEqual(['short', 'old']);
    expect((await board.reap({ ttl: '15m', dryRun: true })).map((t) => t.by)).toEqual(['short', 'long', 'dflt', 'old']);
    expect(read(file)).toBe(text);
    expect((await board.reap()).map((t) => t.by)).toEqual(['short', 'old']);
    expect(read(file)).toBe('- [ ] a\n- [🟡, long, 2026-11-30T03:00:00Z, 4h] b\n- [🟡, dflt, 2026-11-30T04:40:00Z] c\n- [ ] d\n');
  });

  it("prints the claim's own expiry (CLI)", () => {
    const file = boardFile('- [ ] x\n- [ ] y\n');
    const r = mdclaim(['next', '--file', file, '--by', 'a', '--lease', '2h']);
    expect(r.status).toBe(0);
    const line = read(file).split('\n')[0]!;
    const claimedAt = /, (\S+Z), 2h\]/.exec(line)![1]!;
    expect(r.stdout).toBe(`claimed ${named(parseTasks(read(file))[0]!)} by a (lease expires ${new Date(Date.parse(claimedAt) + 7_200_000).toISOString().slice(0, 19)}Z)\n`);
    const hb = mdclaim(['heartbeat', parseTasks(read(file))[0]!.id, '--file', file, '--by', 'a']);
    expect(hb.status).toBe(0);
    expect(hb.stdout).toMatch(/lease expires /);
    const renewed = parseTasks(read(file))[0]!;
    expect(hb.stdout).toContain(`(lease expires ${renewed.expiresAt})`);
    expect(renewed.lease).toBe('2h');
  });
});

describe('bounded durations', () => {
  it('accepts up to 100 years and refuses more, and anything non-finite, as a usage error', () => {
    expect(parseDuration('36525d')).toBe(36_525 * 86_400_000);
    for (const bad of ['36526d', '999999999d', '1e9d', 'Infinityd', Infinity, NaN, -1, 36_526 * 86_400_000]) {
      expect(() => parseDuration(bad as string)).toThrow(expect.objectContaining({ code: 'USAGE' }));
    }
  });

  it('refuses next --lease 999999999d with exit 2 before anything is written (CLI)', () => {
    const file = boardFile('- [ ] x\n');
    const before = bytesOf(file);
    const r = mdclaim(['next', '--file', file, '--by', 'a', '--lease', '999999999d']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^error\[USAGE\]: .*100 years.*\n$/);
    expect(bytesOf(file).equals(before)).toBe(true);
  });

  it('shows no expiry, and does not fail, for a hand-written claim time that names no instant', () => {
    const [t] = parseTasks('- [🟡, a, 2026-13-45T99:99:99Z] x\n');
    expect(t).toMatchObject({ status: 'claimed', lease: '30m' });
    expect(t!.expiresAt).toBeUndefined();
  });
});

