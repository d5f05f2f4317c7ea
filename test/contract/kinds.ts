import { readFileSync } from 'node:fs';
import { afterAll, describe } from 'vitest';
import { openBoard, type PgBoard, type TaskBoard } from '../../src/index.js';
import { boardUrl, dropBoards, pgReachable, pgTitle, uniqueBoard } from '../helpers/pg.js';
import { boardFile } from '../helpers/tmp.js';

/** A fresh board of one kind holding a document: its location (a path or a URL), a board object, and its bytes now. */
export interface Made {
  location: string;
  board: TaskBoard;
  bytes(): Promise<Buffer>;
}

export interface Kind {
  name: 'file' | 'pg';
  make(content: string | Buffer): Promise<Made>;
}

const made: string[] = [];
const open: TaskBoard[] = [];

afterAll(async () => {
  await Promise.all(open.splice(0).map((b) => b.close()));
  await dropBoards(made.splice(0));
});

export const fileKind: Kind = {
  name: 'file',
  async make(content) {
    const location = boardFile(content);
    const board = openBoard(location);
    return { location, board, bytes: async () => readFileSync(location) };
  },
};

export const pgKind: Kind = {
  name: 'pg',
  async make(content) {
    const name = uniqueBoard('c');
    made.push(name);
    const location = boardUrl(name);
    const board = openBoard(location) as PgBoard;
    open.push(board);
    await board.importDocument(Buffer.from(content));
    return { location, board, bytes: () => board.exportDocument() };
  },
};

/** Every kind the contract runs on here: the PostgreSQL board only when its server is reachable (see helpers/pg.ts). */
export const kinds: Kind[] = pgReachable ? [fileKind, pgKind] : [fileKind];

/**
 * One describe block per kind of board, `$name` in the title its name. Without
 * a PostgreSQL server the PostgreSQL block is there, skipped, its title
 * saying why: the run counts what it did not test rather than drop it unseen.
 */
export function describeKinds(title: string, body: (kind: Kind) => void): void {
  for (const kind of [fileKind, pgKind]) {
    const named = title.replaceAll('$name', kind.name);
    if (kind === pgKind && !pgReachable) describe.skip(pgTitle(named), () => body(kind));
    else describe(named, () => body(kind));
  }
}
