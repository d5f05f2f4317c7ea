// Preloaded with --require: fs-ext cannot load in this process, as after an install without a compiler, so mdclaim
// takes flock(2) through koffi. CommonJS, so the preload costs the CLI's start-up next to nothing (no ES module loader).
'use strict';
const Module = require('node:module');

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === 'fs-ext') throw Object.assign(new Error("Cannot find module 'fs-ext'"), { code: 'MODULE_NOT_FOUND' });
  return resolve.call(this, request, ...rest);
};
