import { createRequire } from 'node:module';
import type { FlockFn } from './types.js';

const require = createRequire(import.meta.url);

/** fs-ext's flockSync: a native addon built at install time (optional: it needs a C++ toolchain). Throws when it is not built. */
export function loadFsExt(): FlockFn {
  return (require('fs-ext') as { flockSync: FlockFn }).flockSync;
}
