export { openBoard, Board, DEFAULT_LEASE } from './board/board.js';
export type { BoardOptions, HolderOptions, NextOptions } from './board/board.js';
export type { EditConflict, EditResult } from './board/edit.js';
export { MdclaimError } from './errors.js';
export type { ErrorCode } from './errors.js';
export { parseTasks } from './parse.js';
export type { Task } from './format/task.js';
export type { Status } from './format/marker.js';
export { parseDuration } from './board/duration.js';
