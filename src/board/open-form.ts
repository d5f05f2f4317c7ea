import type { ByteString } from '../format/bytes.js';
import { walkLines } from './walk.js';

/**
 * The open marker a line added to `section` is written with: the form most
 * of the section's open tasks are written in, `[]` or `[ ]`, else (a section
 * with none, or a new one: null) the form most of the board's are; `[ ]` on a tie.
 * So a board of bare `[]` lines stays one. (A line given back is written as
 * it was: see Marker.bare.)
 */
export function openForm(src: ByteString, section: string | undefined | null): string {
  let board = 0;
  let mine = 0;
  let mineOpen = 0;
  walkLines(src, (s) => {
    if (s.status !== 'open') return;
    const bare = s.markerEnd - s.markerStart === 2 ? 1 : -1;
    board += bare;
    if (s.section === section) (mine += bare), mineOpen++;
  });
  return (mineOpen > 0 ? mine : board) > 0 ? '[]' : '[ ]';
}
