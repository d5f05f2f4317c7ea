#!/usr/bin/env node
'use strict';
// Each mdclaim call is a fresh process, and compiling the CLI is a fair part
// of what one costs: keep V8's compiled code of the bundle between calls.
// Node 22.1+ does that itself (module.enableCompileCache, NODE_COMPILE_CACHE);
// on older Node the cache is a file beside the bundle, used only while the
// bundle is the one it was made from, and skipped wherever it cannot be read
// or written.
const fs = require('node:fs');
const path = require('node:path');

const main = path.join(__dirname, '..', 'dist', 'cli.cjs');
const [major, minor] = process.versions.node.split('.').map(Number);

if (major > 22 || (major === 22 && minor >= 1)) {
  require('node:module').enableCompileCache();
  require(main);
} else {
  runCached(main);
}

/** A file's bytes and its stat, read through one descriptor (so the stamp is of the bytes read), in one read where it can. */
function readWhole(file) {
  const fd = fs.openSync(file, 'r');
  try {
    const st = fs.fstatSync(fd);
    const bytes = Buffer.allocUnsafeSlow(st.size);
    let n = 0;
    while (n < bytes.length) {
      const got = fs.readSync(fd, bytes, n, bytes.length - n, n);
      if (got === 0) break;
      n += got;
    }
    return { bytes: bytes.subarray(0, n), st };
  } finally {
    fs.closeSync(fd);
  }
}

function runCached(file) {
  // CommonJS's own Module class: requiring node:module would load Node's ES
  // module loader too, millions of instructions this call never uses.
  const Module = module.constructor;
  let source;
  let stamp;
  try {
    const { bytes, st } = readWhole(file);
    // The bundle is ASCII (built so, and tested): read as latin1, V8 makes its
    // one-byte string straight from the bytes, with no UTF-8 decoding.
    source = require('node:buffer').isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
    // V8 checks a cache against the source's length only: the stamp ties it to this very file.
    stamp = `${st.size} ${st.mtimeMs} ${st.ino}\n`;
  } catch {
    return require(file);
  }
  const cacheFile = path.join(path.dirname(file), `.cli.cjs.${process.versions.v8}.v8cache`);
  let cached;
  try {
    const { bytes } = readWhole(cacheFile);
    if (bytes.subarray(0, stamp.length).toString('latin1') === stamp) cached = bytes.subarray(stamp.length);
  } catch {
    // no cache yet
  }
  const vm = require('node:vm');
  // The #! line becomes a comment of the same length, so positions stay those of the file.
  const body = source.startsWith('#!') ? `//${source.slice(2)}` : source;
  const script = new vm.Script(Module.wrap(body), { filename: file, cachedData: cached });
  if (cached === undefined || script.cachedDataRejected) {
    // Made at exit, the cache holds every function this call compiled, not only the top level.
    process.once('exit', () => {
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      try {
        fs.writeFileSync(tmp, Buffer.concat([Buffer.from(stamp, 'latin1'), script.createCachedData()]), { mode: 0o644 });
        fs.renameSync(tmp, cacheFile);
      } catch {
        try {
          fs.unlinkSync(tmp);
        } catch {
          // nothing was written
        }
      }
    });
  }
  // The bundle loads its optional dependencies (fs-ext, koffi, pg) through module.require, as it does run by Node's own loader.
  const req = Module.createRequire(file);
  const module_ = { exports: {}, filename: file, id: file, loaded: false, require: req };
  script.runInThisContext()(module_.exports, req, module_, file, path.dirname(file));
}
