// File circles, checked by `make lint` after .dependency-cruiser.cjs (`npm run lint:imports`).
// A circle of imports that exist at run time is refused everywhere: it makes a module's
// initialisation depend on which file of the circle loads first. Type-only imports are left out
// (`tsPreCompilationDeps: false`: what the compiled JavaScript imports), so mutually recursive
// types inside one folder (the element registry and its element modules) are allowed; between
// folders, .dependency-cruiser.cjs's no-folder-cycle refuses them, type-only imports included.
// A circle crossing the thread boundary is impossible by the room rules already: worker/ imports
// only engine/, and engine/ nothing of pool/ or worker/.
'use strict'
const { options } = require('./.dependency-cruiser.cjs')

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'no circle of run-time imports between files',
      severity: 'error',
      from: {},
      to: { circular: true }
    }
  ],
  options: { ...options, tsPreCompilationDeps: false }
}
