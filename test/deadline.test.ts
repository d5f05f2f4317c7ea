import { afterEach, describe, expect, it, vi } from 'vitest';
import { after, atDeadline, capped, MAX_TIMER_MS, sleep } from '../src/storage/deadline.js';

const DAY = 86_400_000;

describe('atDeadline', () => {
  afterEach(() => void vi.useRealTimers());

  it('fires once the deadline has come, not before, even past setTimeout’s longest delay (about 24.8 days)', () => {
    vi.useFakeTimers();
    const fired: number[] = [];
    const start = Date.now();
    atDeadline(start + 30 * DAY, () => fired.push(Date.now() - start));
    // A plain setTimeout of that length fires at once: the rule this guards against.
    const naive = vi.fn();
    setTimeout(naive, 30 * DAY);
    vi.advanceTimersByTime(10);
    expect(naive).toHaveBeenCalled();
    vi.advanceTimersByTime(25 * DAY);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(5 * DAY);
    expect(fired).toEqual([30 * DAY]);
  });

  it('fires from a timer when the deadline has passed already, and not after it is cancelled', () => {
    vi.useFakeTimers();
    const past = vi.fn();
    atDeadline(Date.now() - 1000, past);
    expect(past).not.toHaveBeenCalled();
    vi.advanceTimersByTime(0);
    expect(past).toHaveBeenCalledTimes(1);
    const cancelled = vi.fn();
    const cancel = atDeadline(Date.now() + 30 * DAY, cancelled);
    vi.advanceTimersByTime(25 * DAY);
    cancel();
    vi.advanceTimersByTime(10 * DAY);
    expect(cancelled).not.toHaveBeenCalled();
  });
});

describe('after and sleep, the one timer of every runner wait', () => {
  afterEach(() => void vi.useRealTimers());

  it.each([
    ['a 90d heartbeat interval', 90 * DAY],
    ['a 30d grace', 30 * DAY],
    ['the longest plain delay, plus one', 2 ** 31],
  ])('waits out %s in full, re-arming at the timer’s limit, and can be cancelled', (_, ms) => {
    vi.useFakeTimers();
    const fired = vi.fn();
    after(ms, fired);
    vi.advanceTimersByTime(ms - 1);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledTimes(1);
    const cancelled = vi.fn();
    const cancel = after(ms, cancelled);
    vi.advanceTimersByTime(ms - 1); // past at least one re-arm
    cancel();
    vi.advanceTimersByTime(ms);
    expect(cancelled).not.toHaveBeenCalled();
  });

  it('sleep resolves only after the whole delay', async () => {
    vi.useFakeTimers();
    let woke = false;
    void sleep(40 * DAY).then(() => (woke = true));
    await vi.advanceTimersByTimeAsync(39 * DAY);
    expect(woke).toBe(false);
    await vi.advanceTimersByTimeAsync(DAY);
    expect(woke).toBe(true);
  });

  it('caps a delay handed to a 32-bit setting at the longest it takes', () => {
    expect([capped(25 * DAY), capped(10_000)]).toEqual([MAX_TIMER_MS, 10_000]);
  });
});
