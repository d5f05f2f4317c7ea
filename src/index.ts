// Buffer and NodeJS appear in the declarations: bring in Node's types for the importer, whose compiler (TypeScript 6+) loads no @types package by default.
/// <reference types="node" preserve="true" />
export { Board, DEFAULT_LEASE } from './file/board.js';
export { openBoard } from './open.js';
export type { AnyBoard, OpenOptions } from './open.js';
export { PgBoard } from './pg/board.js';
export type { PgBoardOptions } from './pg/board.js';
export type { BoardOptions } from './file/board.js';
export type { TaskBoard, NextOptions, PassedOver, ClaimOptions, HolderOptions, ReapOptions, Reaped, RetryOptions, HistoryEvent, HistoryOptions, Survey } from './board/types.js';
export type { BoardKind } from './board/capabilities.js';
export type { TaskBlocker } from './board/standing.js';
export type { EditConflict, EditResult } from './file/edit.js';
export { MdclaimError } from './errors.js';
export type { ErrorCode } from './errors.js';
export { parseTasks } from './parse.js';
export type { Task } from './format/task.js';
export type { PathLock } from './format/locks.js';
export type { PathMode } from './format/paths.js';
export type { CheckPathsOptions, HeldPath, LockPathsOptions, PathLocking, PathRequest, UnlockPathsOptions } from './board/path-types.js';
export type { Status } from './format/marker.js';
export { parseDuration } from './board/duration.js';
export { runTasks } from './runner/run.js';
export type { RunnerBoard, RunOptions, RunResult, TaskOutcome, Fence, StopSignal, WorktreeOptions } from './runner/types.js';
export type { RunEvent } from './runner/events.js';
