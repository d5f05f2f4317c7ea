import { printable } from '../format/printable.js';

// Lines of the view as runs of text with a tone, cut to the terminal's width
// and painted with SGR colours only where colour is wanted.

export type Tone = 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan' | 'magenta' | 'inverse';
export type Seg = readonly [text: string, tone?: Tone];
export type Line = readonly Seg[];

export interface Style {
  /** Paint tones as SGR colours (a terminal, and NO_COLOR unset). */
  color: boolean;
  /** Use emoji and block glyphs (a UTF-8 locale); ASCII otherwise. */
  glyphs: boolean;
  /** Columns a string takes on the terminal (wide and emoji characters count two). */
  width: (text: string) => number;
}

const SGR: Record<Tone, string> = { bold: '1', dim: '2', red: '31', green: '32', yellow: '33', cyan: '36', magenta: '35', inverse: '7' };

let graphemes: Intl.Segmenter | undefined;

/** The line as the terminal shows it: at most `columns` wide (cut with `…`), painted when `style.color`. */
export function paint(line: Line, columns: number, style: Style): string {
  let out = '';
  let left = columns;
  for (let i = 0; i < line.length && left > 0; i++) {
    // Board text is shown, never obeyed: its controls escaped, as every message writes them.
    const text = printable(line[i]![0]);
    const tone = line[i]![1];
    let piece = text;
    const w = style.width(text);
    if (w > left || (w === left && restWidth(line, i + 1, style) > 0)) piece = cut(text, left - 1, style) + (style.glyphs ? '…' : '~');
    left -= style.width(piece);
    out += style.color && tone !== undefined ? `\x1b[${SGR[tone]}m${piece}\x1b[0m` : piece;
  }
  return out;
}

function restWidth(line: Line, from: number, style: Style): number {
  let w = 0;
  for (let i = from; i < line.length; i++) w += style.width(printable(line[i]![0]));
  return w;
}

/** The longest start of `text` at most `columns` wide, cut between graphemes. */
function cut(text: string, columns: number, style: Style): string {
  graphemes ??= new Intl.Segmenter();
  let out = '';
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const w = style.width(segment);
    if (used + w > columns) break;
    out += segment;
    used += w;
  }
  return out;
}

/** A bar of `cells` cells, `done` of `total` filled. */
export function bar(done: number, total: number, cells: number, style: Style): Line {
  const full = total === 0 ? 0 : Math.round((done / total) * cells);
  const [on, off] = style.glyphs ? ['█', '░'] : ['#', '.'];
  return [['[', 'dim'], [on.repeat(full), 'green'], [off.repeat(cells - full), 'dim'], [']', 'dim']];
}
