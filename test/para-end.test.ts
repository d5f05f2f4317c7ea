import { describe, expect, it } from 'vitest';
import { toByteString } from '../src/format/bytes.js';
import { endsAsParagraph } from '../src/format/para-end.js';

/** Ask about the paragraph whose first line is `first`, followed by `rest`. */
const ends = (first: string, rest: string) => endsAsParagraph(toByteString(first + rest), toByteString(first).length);

describe('telling that a top-level paragraph ends as one', () => {
  it('says yes when text lines run to the end, a blank line, an ATX heading, a fence or a quote', () => {
    for (const rest of ['', '[x] b\n[ ] c', '[x] b\n[ ] c\n', '[x] b\n\n- [ ] c\n', '[ ] b\n# H\n', '  [ ] b\n```js\n', '[ ] b\n~~~\n', '[ ] b\n> q\n', '[ ] b\r\n\r\n---\r\n', 'text\n   ## H\n']) {
      expect(ends('[ ] a\n', rest), JSON.stringify(rest)).toBe(true);
    }
  });

  it('says it cannot tell when a line below could make it a heading or start something it would take reading to judge', () => {
    for (const rest of ['[x] b\n---\n', '[x] b\n===\n', '[ ] b\n- [ ] item\n', '[ ] b\n***\n', '[ ] b\n<div>\n', '[ ] b\n1. x\n', '[ ] b\n2. x\n', '[ ] b\n\t# not a heading\n', '    - not an item\n', '[ ] b\r[ ] c\n']) {
      expect(ends('[ ] a\n', rest), JSON.stringify(rest)).toBe(false);
    }
  });

  it('says it cannot tell after a lone carriage return, a line ending it does not follow', () => {
    expect(endsAsParagraph(toByteString('[ ] a\r[ ] b\r'), 6)).toBe(false);
  });
});
