// The import rules of docs/architecture.md ("Import rules"), checked by `make lint` (`npm run
// lint:imports`), with .dependency-cruiser-runtime.cjs (file circles). These two files are the
// authority: when they and the doc disagree, the doc is wrong.
// Today's known breaches are listed one by one in .dependency-cruiser-known-violations.json
// (`--ignore-known`, one file for both runs): they do not fail the build, any new one does.
// `npm run lint:imports:baseline` rewrites that file; run it when a breach has gone away, never to
// admit a new one (review its diff: it should only lose lines).
'use strict'

/** A path list as one anchored regular expression ('server/util/' a folder, 'server/main.ts' a file). */
const anyOf = (paths) => `^(${paths.map((p) => p.replace(/[.]/g, '\\.') + (p.endsWith('/') ? '' : '$')).join('|')})`

// Floors, bottom first (docs/architecture.md, "Import rules"): a module imports only from its
// own floor or below. A file named here sits on its own floor, not on its folder's.
const SERVER_FLOORS = [
  ['server/errors.ts', 'server/config.ts', 'server/logger.ts', 'server/util/', 'server/net/',
    'server/secrets/keyring.ts', 'server/process/'],
  ['server/store/'],
  ['server/secrets/', 'server/documents/', 'server/datasources/', 'server/webhooks/', 'server/auth/',
    'server/metrics/'],
  ['server/services/'],
  ['server/render/'],
  ['server/jobs/'],
  ['server/http/'],
  ['server/app.ts', 'server/context.ts', 'server/main.ts', 'server/demo/', 'server/openapi/']
]
// pdf/ and zpl/ use expressions but never template/, so the engine's folders form no cycle.
const ENGINE_FLOORS = [
  ['engine/types.ts', 'engine/errors.ts', 'engine/limits.ts', 'engine/deadline.ts', 'engine/bytes.ts',
    'engine/lists.ts', 'engine/deflate.ts', 'engine/deflate-codes.ts', 'engine/piece-deflate.ts'],
  ['engine/expr/', 'engine/gs1/', 'engine/png/'],
  ['engine/pdf/', 'engine/zpl/', 'engine/einvoice/'],
  ['engine/template/'],
  ['engine/render.ts']
]
// The studio (issue 36): the contract both sides import, then its two sides, which never import
// each other (studio/server runs in the CLI process, studio/web in the browser).
const STUDIO_FLOORS = [
  ['studio/contract.ts'],
  ['studio/server/', 'studio/web/']
]

/** The rules of one room's floors: nothing imports upward, and every file of the room has a floor. */
function floorRules (room, floors) {
  const all = floors.flat()
  const floorOf = (path) => {
    let best = { floor: -1, length: -1 }
    floors.forEach((paths, floor) => {
      for (const p of paths) {
        const hit = p.endsWith('/') ? path.startsWith(p) : path === p
        if (hit && p.length > best.length) best = { floor, length: p.length }
      }
    })
    return best.floor
  }
  /** Entries on floors `test` that lie inside an entry of `outer` (a file on another floor than its folder). */
  const nestedIn = (outer, test) => all.filter((p) => test(floorOf(p)) && outer.some((o) => o !== p && p.startsWith(o)))
  const upward = floors.slice(0, -1).map((paths, n) => {
    const above = all.filter((p) => floorOf(p) > n)
    const notFrom = nestedIn(paths, (f) => f !== n)
    const notTo = nestedIn(above, (f) => f <= n)
    return {
      name: `${room}-floor-${n}-imports-upward`,
      comment: `${room}/ floor ${n} (${paths.join(', ')}) imports only from its own floor or below`,
      severity: 'error',
      from: { path: anyOf(paths), ...(notFrom.length > 0 ? { pathNot: anyOf(notFrom) } : {}) },
      to: { path: anyOf(above), ...(notTo.length > 0 ? { pathNot: anyOf(notTo) } : {}) }
    }
  })
  const everyFileHasAFloor = {
    name: `${room}-module-has-a-floor`,
    comment: `every file of ${room}/ sits on a floor: give a new module its floor in .dependency-cruiser.cjs ` +
      'and in docs/architecture.md',
    severity: 'error',
    from: { path: `^${room}/`, pathNot: anyOf(all) },
    to: {}
  }
  return [everyFileHasAFloor, ...upward]
}

// Folders allowed in a folder cycle: none since issue 31 took the knot of server/ apart.
// dependency-cruiser 17 cannot list folder-level breaches in the known-violations file
// (src/analyze/soften-known-violations.mjs: "TODO: folder level violations"), so any would be
// named here. Never add to it.
const KNOWN_FOLDER_CYCLES = []

// What the engine must never reach for: it runs in a worker with nothing but its input.
const IO_PACKAGES = ['mysql2', 'fastify', 'undici', 'piscina', 'pino', 'prom-client', 'commander']
const IO_CORE = ['net', 'http', 'https', 'http2', 'tls', 'dgram', 'dns', 'child_process', 'cluster',
  'worker_threads']

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'engine-is-pure',
      comment: 'engine/ imports nothing of server/, cli/, pool/, worker/, client/ or bin/',
      severity: 'error',
      from: { path: '^engine/' },
      to: { path: '^(server|cli|pool|worker|client|bin|test|bench)/' }
    },
    {
      name: 'engine-does-no-io',
      comment: 'engine/ opens no connection, thread or process: no database, network or pool package',
      severity: 'error',
      from: { path: '^engine/' },
      to: {
        path: `(^|/)node_modules/(${IO_PACKAGES.join('|')})/|^(node:)?(${IO_CORE.join('|')})$`
      }
    },
    {
      name: 'worker-imports-engine-only',
      comment: 'worker/ (the render thread) imports only engine/ and worker/',
      severity: 'error',
      from: { path: '^worker/' },
      to: { path: '^(server|cli|pool|client|bin|test|bench)/' }
    },
    {
      name: 'pool-imports-engine-and-protocols',
      comment: 'pool/ imports only engine/, pool/ and the two protocol files of worker/ ' +
        '(so no file circle crosses the thread boundary)',
      severity: 'error',
      from: { path: '^pool/' },
      to: { path: '^(server|cli|client|bin|worker)/', pathNot: '^worker/(task|output)-protocol\\.ts$' }
    },
    {
      name: 'worker-reached-through-pool',
      comment: 'only pool/ (and tests) import worker/: the thread is started by the pool, by path',
      severity: 'error',
      from: { path: '^(server|cli|client|bin|bench)/' },
      to: { path: '^worker/' }
    },
    {
      name: 'services-know-no-callers',
      comment: 'server/services/ imports no http/, auth/, render/ or jobs/; of webhooks/ only the outbox ' +
        'and the event types (signing belongs to the dispatcher)',
      severity: 'error',
      from: { path: '^server/services/' },
      to: {
        path: '^server/(http|auth|render|jobs|webhooks)/',
        pathNot: '^server/webhooks/(outbox|events)\\.ts$'
      }
    },
    {
      name: 'main-is-imported-by-bin-and-tests',
      comment: 'server/main.ts, the composition root, is imported by bin/ and test/ only',
      severity: 'error',
      from: { pathNot: '^(bin|test)/' },
      to: { path: '^server/main\\.ts$' }
    },
    {
      name: 'cli-never-over-http',
      comment: 'cli/ reuses server/context.ts and the modules, never server/http/ (routes, plugins) or app.ts',
      severity: 'error',
      from: { path: '^cli/' },
      to: { path: '^server/(http/|app\\.ts$)' }
    },
    {
      name: 'client-imports-no-server',
      comment: 'client/ (svc/client) loads nothing of server/; the webhook verifier, published as ' +
        'svc/webhooks and dependency-free (webhook-verifier-stands-alone), is re-exported',
      severity: 'error',
      from: { path: '^client/' },
      to: { path: '^server/', pathNot: '^server/webhooks/verify\\.ts$' }
    },
    {
      name: 'webhook-verifier-stands-alone',
      comment: 'server/webhooks/verify.ts (svc/webhooks) imports node: modules only',
      severity: 'error',
      from: { path: '^server/webhooks/verify\\.ts$' },
      to: { dependencyTypesNot: ['core'] }
    },
    {
      name: 'server-imports-no-cli-or-client',
      comment: 'server/ never imports cli/, client/ or bin/',
      severity: 'error',
      from: { path: '^server/' },
      to: { path: '^(cli|client|bin)/' }
    },
    {
      name: 'studio-imported-by-its-command',
      comment: 'nothing imports studio/ but the `svc studio` command (cli/commands/studio.ts) and tests',
      severity: 'error',
      from: { path: '^(engine|pool|worker|server|cli|client|bin)/', pathNot: '^cli/commands/studio\\.ts$' },
      to: { path: '^studio/' }
    },
    {
      name: 'studio-server-imports',
      comment: 'studio/server/ (the local API) imports engine/, pool/, server/ modules as the CLI does (never ' +
        'server/http/, app.ts, main.ts), the contract and itself; never cli/ (its helpers are handed in: ' +
        'cli/commands imports studio/server, so the other way would be a folder cycle), studio/web/, worker/',
      severity: 'error',
      from: { path: '^studio/server/' },
      to: { path: '^(cli|client|bin|worker|test|bench)/|^studio/web/|^server/(http/|app\\.ts$|main\\.ts$)' }
    },
    {
      name: 'studio-web-imports',
      comment: 'studio/web/ (the page, bundled by esbuild) imports only studio/web/, the contract and npm packages',
      severity: 'error',
      from: { path: '^studio/web/' },
      to: { path: '^(engine|pool|worker|server|cli|client|bin|test|bench)/|^studio/server/' }
    },
    {
      name: 'studio-contract-is-types-only',
      comment: 'studio/contract.ts is the types both sides share: it imports nothing',
      severity: 'error',
      from: { path: '^studio/contract\\.ts$' },
      to: {}
    },
    ...floorRules('server', SERVER_FLOORS),
    ...floorRules('studio', STUDIO_FLOORS),
    ...floorRules('engine', ENGINE_FLOORS),
    {
      name: 'no-folder-cycle',
      comment: 'no cycle between the folders of the code, type-only imports included (test/ and bench/ ' +
        'share fixtures as they like)',
      severity: 'error',
      scope: 'folder',
      from: { pathNot: `^(test|bench)(/|$)|^(${KNOWN_FOLDER_CYCLES.join('|')})$` },
      to: { circular: true }
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules|coverage|\\.svc)/' },
    // Type-only imports count: an interface imported from the wrong room is the wrong arrow too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.json']
    },
    reporterOptions: { text: { highlightFocused: true } }
  }
}
