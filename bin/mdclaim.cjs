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
// What CommonJS wraps a module's source in: put around the bundle's bytes as
// they are read, the wrapped source is one flat string from the start, not a
// copy of the bundle that V8 would flatten into another before compiling.
const HEAD = '(function (exports, require, module, __filename, __dirname) { ';
const TAIL = '\n});';
const [major, minor] = process.versions.node.split('.').map(Number);

if (major > 22 || (major === 22 && minor >= 1)) {
  require('node:module').enableCompileCache();
  require(main);
} else {
  runCached(main);
}

/** A file's bytes (after `head` bytes left free) and its stat, read through one descriptor, so the stamp is of the bytes read. */
function readWhole(file, head = 0, tail = 0) {
  const fd = fs.openSync(file, 'r');
  try {
    const st = fs.fstatSync(fd);
    const bytes = Buffer.allocUnsafeSlow(head + st.size + tail);
    let n = 0;
    while (n < st.size) {
      const got = fs.readSync(fd, bytes, head + n, st.size - n, n);
      if (got === 0) break;
      n += got;
    }
    return { bytes: bytes.subarray(0, head + n + tail), st };
  } finally {
    fs.closeSync(fd);
  }
}

/** The cache's stamp, then V8's data from the next multiple of 8 bytes: V8 copies data that is not 8-byte aligned before reading it. */
function dataAt(stamp) {
  return Math.ceil(stamp.length / 8) * 8;
}

function runCached(file) {
  // CommonJS's own Module class: requiring node:module would load Node's ES
  // module loader too, millions of instructions this call never uses.
  const Module = module.constructor;
  let source;
  let stamp;
  try {
    const { bytes, st } = readWhole(file, HEAD.length, TAIL.length);
    const body = bytes.subarray(HEAD.length, bytes.length - TAIL.length);
    // The #! line becomes a comment of the same length, so positions stay those of the file.
    if (body[0] === 0x23 && body[1] === 0x21) body.write('//', 'latin1');
    // The bundle is ASCII (built so, and tested): read as latin1, V8 makes its
    // one-byte string straight from the bytes, with no UTF-8 decoding.
    if (require('node:buffer').isAscii(body)) {
      bytes.write(HEAD, 'latin1');
      bytes.write(TAIL, bytes.length - TAIL.length, 'latin1');
      source = bytes.toString('latin1');
    } else {
      source = HEAD + body.toString('utf8') + TAIL;
    }
    // V8 checks a cache against the source's length only: the stamp ties it to this very file.
    stamp = `${st.size} ${st.mtimeMs} ${st.ino}\n`;
  } catch {
    return require(file);
  }
  const cacheFile = path.join(path.dirname(file), `.cli.cjs.${process.versions.v8}.v8cache`);
  let cached;
  try {
    const { bytes } = readWhole(cacheFile);
    if (bytes.subarray(0, stamp.length).toString('latin1') === stamp) cached = bytes.subarray(dataAt(stamp));
  } catch {
    // no cache yet
  }
  const vm = require('node:vm');
  const script = new vm.Script(source, { filename: file, cachedData: cached });
  if (cached === undefined || script.cachedDataRejected) {
    // Made at exit, the cache holds every function this call compiled, not only the top level.
    process.once('exit', () => {
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      try {
        const head = Buffer.alloc(dataAt(stamp), ' ');
        head.write(stamp, 'latin1');
        fs.writeFileSync(tmp, Buffer.concat([head, script.createCachedData()]), { mode: 0o644 });
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
