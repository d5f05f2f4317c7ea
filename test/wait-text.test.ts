import { describe, expect, it } from 'vitest';
import { span, spanAhead } from '../src/format/span.js';
import { mdclaim } from './helpers/cli.js';
import { describeKinds } from './contract/kinds.js';

// A wait is written one way wherever a person reads it: list, a refused claim, status and watch.

describe('the one way a span of time is written', () => {
  it('gives its two largest units, down to the second, days past a day', () => {
    expect([45_000, 245_000, 7_380_000, 273_600_000].map(span)).toEqual(['45s', '4m05s', '2h03m', '3d04h']);
    expect(span(2912106 * 86_400_000 + 17 * 3_600_000)).toBe('2912106d17h');
  });

  it('rounds what is still ahead up: a wait of 1ms is 1s, never 0s', () => {
    expect([1, 999, 1000, 59_001].map(spanAhead)).toEqual(['1s', '1s', '1s', '1m00s']);
  });
});

const hoursOf = (text: string) => {
  const m = /^(\d+)d(\d\d)h$/.exec(text)!;
  return Number(m[1]) * 24 + Number(m[2]);
};

describeKinds('a far-future retry on the $name board', (kind) => {
  it('reads the same in list and in the refusal of a claim', async () => {
    const { location: f } = await kind.make('# T\n\n- [ ] far // Attempts: 1, not before 9999-12-31T23:59:59Z\n');
    const listed = /retry in (\S+) \(1 attempt\)/.exec(mdclaim(['list', '--file', f]).stdout)?.[1];
    const id = (JSON.parse(mdclaim(['list', '--json', '--file', f]).stdout) as { tasks: { id: string }[] }).tasks[0]!.id;
    const refused = mdclaim(['claim', id, '--file', f, '--by', 'x']);
    expect(refused.status).toBe(4);
    const said = /\(in (\S+)\)\n$/.exec(refused.stderr)?.[1];
    expect(listed).toMatch(/^\d+d\d\dh$/);
    expect(said).toMatch(/^\d+d\d\dh$/);
    // Two processes, two instants: an hour's boundary may fall between them.
    expect(Math.abs(hoursOf(listed!) - hoursOf(said!))).toBeLessThanOrEqual(1);
  });
});
