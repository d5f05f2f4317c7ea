import { expect } from 'vitest';
import { MdclaimError } from '../../src/index.js';

/** The MdclaimError an operation fails with; fails the test when it succeeds or throws anything else. */
export async function errorOf(p: Promise<unknown>): Promise<MdclaimError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(MdclaimError);
    return err as MdclaimError;
  }
  throw new Error('expected the operation to fail');
}
