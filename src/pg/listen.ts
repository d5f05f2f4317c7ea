import type { Db, Listener } from './db.js';
import { NOTIFY_CHANNEL } from './constants.js';

/**
 * The one LISTEN client: a connection of its own on the board's database,
 * listening on mdclaim's channel, calling `heard` for each NOTIFY about board
 * `board` (the trigger on history sends the board's id) and `ended` when the
 * connection goes (it is not made again here: the caller decides when).
 * Resolves once LISTEN is in place, so nothing notified after is missed.
 */
export async function listenBoard(db: Db, board: number | string, heard: () => void, ended: () => void): Promise<Listener> {
  const payload = String(board);
  const client = await db.dedicated();
  client.on('notification', (n) => {
    if (n.channel === NOTIFY_CHANNEL && n.payload === payload) heard();
  });
  client.on('end', ended);
  await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
  return client;
}
