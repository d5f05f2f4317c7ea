import { afterEach, describe, expect, it, vi } from 'vitest';
import { atDeadline } from '../src/storage/deadline.js';

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
