// The dependency directions of the code base, checked by `npm run deps` (dependency-cruiser, run
// by .ci/run after lint). Every import is resolved to a file, type-only imports included, so a
// rule holds whatever the path spelling (`../../db/x.ts` from a route, `../db/x.ts` from a job).
//
//   domain  ←  db, hacienda  ←  operations  ←  jobs  ←  api, workers
//                    hacienda  ←  documents  ←  jobs
//                               platform  ←  jobs, api, workers
//
// - domain/ holds pure rules: it imports nothing of ours (npm packages and node: built-ins only).
// - db/ and hacienda/ may import domain/, not each other: SQL knows nothing of XML and signatures,
//   the Hacienda code knows nothing of tables.
// - operations/ holds the use cases that span several tables and rules (a credit note, a payment,
//   booking a chunk of invoices): it may import db/, domain/ and hacienda/; jobs/, api/, workers/
//   and the entry points import it; db/, hacienda/, documents/ and domain/ never do.
// - documents/ renders documents people read (the PDF): it may import domain/ and hacienda/ (the
//   comprobante's model), never db/, jobs/, api/, workers/; jobs/ (and so api/) import it.
// - platform/ is the queue and process infrastructure (Redis or its Postgres stand-in, queue shards,
//   Redis keys, worker metrics, tracing, building a Worker): it imports nothing of ours but config/
//   types, so api/ uses it without reaching into jobs/.
// - jobs/ may import platform/, db/, hacienda/, documents/, domain/; api/ may also import jobs/ (to
//   enqueue, and the registry for Bull Board and /metrics); workers/ imports jobs/ (and platform/,
//   db/, hacienda/, domain/). Nothing of the layers imports api/ or workers/.
// - jobs/ holds one folder per kind of work (a work module) and what they share at its top: a work
//   module never imports another one, and of the shared files only registry.ts imports the modules.
// - cli/, scripts/, bench/ and test/ are entry points: they may import anything, no layer imports
//   them, and only test/ imports test/ (its helpers are for tests).
// - No import cycles anywhere, type-only imports included (rule no-circular).
// - telemetry/ sets up a process's OpenTelemetry SDK: only api/server.ts, workers/main.ts and the
//   entry-point folders import it; it imports nothing of ours.
// - config/ reads the environment. Every process validates it once at boot in its entry point
//   (api/server.ts, workers/main.ts, db/migrate.ts, the simulator's main.ts, and the entry-point
//   folders) and passes plain options down; a module called config.ts is a process's own config
//   module (the simulator's SIMULATOR_* variables) and may use config/'s error type. Everything
//   else in the layers may import config/ for its types only (`import type { Config }`: the shape
//   of the options it is handed), never a value, so nothing below the edge reads the environment.
// - client/ is the typed client package (@factura-cr/client), shipped apart from the service: it
//   imports nothing of ours outside client/ (only its npm dependency, openapi-fetch), and nothing
//   of the service imports it; tests drive the service through it. Its types are generated from the
//   OpenAPI document by scripts/ (npm run client:generate), never by importing the service.
// - mcp/ is the assistant server (npm run mcp): it speaks to the service over its REST API only,
//   through the client package; it imports client/ (and config/), and nothing imports it.
// - The Hacienda simulator is the fake of an external system: nothing of the service imports it.
//   Its own rule (what it may import: what a real Hacienda would know) sits beside these, under
//   "simulator"; the paths below cover it both in hacienda/simulator/ and in a top-level simulator/.
const SIMULATOR = '^(hacienda/simulator|simulator)/';
const ENTRY_POINTS = '^(cli|scripts|bench|test)/';
const LAYERS = '^(domain|db|hacienda|operations|documents|platform|jobs|api|workers|config)/';
const OURS =
  '^(api|bench|cli|client|config|db|documents|domain|hacienda|jobs|mail-catcher|mcp|operations|platform|scripts|simulator|telemetry|test|web|workers)/|^[^/]+\\.ts$';
/** Where a process reads its configuration (value imports of config/ allowed). */
const CONFIG_EDGE = [
  '^api/server\\.ts$',
  '^workers/main\\.ts$',
  '^db/migrate\\.ts$',
  '^(hacienda/simulator|simulator)/main\\.ts$',
  '(^|/)config\\.ts$',
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'domain/ imports nothing of ours: pure rules, no I/O, testable alone.',
      severity: 'error',
      from: { path: '^domain/' },
      to: { path: OURS, pathNot: '^domain/' },
    },
    {
      name: 'db-below-jobs',
      comment:
        'db/ may import domain/ (and config/ types) only; never hacienda/, operations/, platform/, jobs/, api/, workers/.',
      severity: 'error',
      from: { path: '^db/' },
      to: { path: '^(hacienda|operations|documents|platform|jobs|api|workers|simulator)/' },
    },
    {
      name: 'hacienda-below-jobs',
      comment:
        'hacienda/ (the service side) may import domain/ (and config/ types) only; never db/, jobs/, api/, workers/.',
      severity: 'error',
      from: { path: '^hacienda/', pathNot: SIMULATOR },
      to: { path: '^(db|operations|documents|jobs|api|workers)/' },
    },
    {
      name: 'documents-below-jobs',
      comment:
        'documents/ may import domain/ and hacienda/ (and config/ types) only; never db/, jobs/, api/, workers/.',
      severity: 'error',
      from: { path: '^documents/' },
      to: { path: '^(db|operations|jobs|api|workers|simulator)/' },
    },
    {
      name: 'operations-below-jobs',
      comment:
        'operations/ may import db/, hacienda/, domain/ (and config/ types); never documents/, jobs/, api/, workers/.',
      severity: 'error',
      from: { path: '^operations/' },
      to: { path: '^(documents|jobs|api|workers|simulator)/' },
    },
    {
      name: 'jobs-below-processes',
      comment: 'jobs/ may import platform/, db/, hacienda/, documents/, domain/; never api/ or workers/.',
      severity: 'error',
      from: { path: '^jobs/' },
      to: { path: '^(api|workers)/' },
    },
    {
      name: 'platform-below-jobs',
      comment: 'platform/ imports nothing of ours but config/ types: queue and process infrastructure alone.',
      severity: 'error',
      from: { path: '^platform/' },
      to: { path: OURS, pathNot: '^(platform|config)/' },
    },
    {
      name: 'work-modules-apart',
      comment:
        'A work module (a folder of jobs/) never imports another: what they share sits at the top of jobs/.',
      severity: 'error',
      from: { path: '^jobs/([^/]+)/' },
      to: { path: '^jobs/[^/]+/', pathNot: '^jobs/$1/' },
    },
    {
      name: 'registry-lists-the-modules',
      comment: 'Of the shared files at the top of jobs/, only registry.ts imports the work modules.',
      severity: 'error',
      from: { path: '^jobs/[^/]+\\.ts$', pathNot: '^jobs/registry\\.ts$' },
      to: { path: '^jobs/[^/]+/' },
    },
    {
      name: 'processes-apart',
      comment: 'api/ and workers/ are separate processes: neither imports the other.',
      severity: 'error',
      from: { path: '^(api|workers)/' },
      to: { path: '^(api|workers)/', pathNot: '^$1/' },
    },
    {
      name: 'no-layer-imports-entry-points',
      comment: 'cli/, scripts/, bench/ and test/ are entry points: the layers never import them.',
      severity: 'error',
      from: { path: LAYERS },
      to: { path: ENTRY_POINTS },
    },
    {
      name: 'test-helpers-for-tests',
      comment: 'test/ is imported by tests only.',
      severity: 'error',
      from: { pathNot: '^test/' },
      to: { path: '^test/' },
    },
    {
      name: 'service-never-imports-the-simulator',
      comment:
        'The simulator is the fake of Hacienda, run as its own process: the service reaches it over HTTP only.',
      severity: 'error',
      from: { path: LAYERS, pathNot: SIMULATOR },
      to: { path: SIMULATOR },
    },
    {
      name: 'config-values-at-the-edge',
      comment:
        'Below the entry points config/ is imported for its types only (plain options are passed down); ' +
        'loadConfig() and the other values belong to entry points and config modules.',
      severity: 'error',
      from: {
        path: '^(db|hacienda|operations|documents|platform|jobs|api|workers|simulator)/',
        pathNot: CONFIG_EDGE,
      },
      to: { path: '^config/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'config-is-the-bottom',
      comment: 'config/ imports nothing of ours: every process can load it first.',
      severity: 'error',
      from: { path: '^config/' },
      to: { path: OURS, pathNot: '^config/' },
    },
    {
      name: 'resolvable',
      comment: 'Every import resolves (an unresolved one would hide from the rules above).',
      severity: 'error',
      from: { path: OURS },
      to: { couldNotResolve: true },
    },
    {
      name: 'mail-catcher-apart',
      comment:
        'The mail catcher is the fake of a mail server, run as its own process: the service reaches it over SMTP only, and it imports nothing of ours.',
      severity: 'error',
      from: { path: '^mail-catcher/' },
      to: { path: OURS, pathNot: '^mail-catcher/' },
    },
    {
      name: 'service-never-imports-the-mail-catcher',
      comment: 'Only entry points (npm start, tests) start the mail catcher.',
      severity: 'error',
      from: { path: LAYERS },
      to: { path: '^mail-catcher/' },
    },
    {
      name: 'telemetry-at-the-edge',
      comment:
        "telemetry/ registers a process's tracer provider: only entry points (api/server.ts, workers/main.ts, " +
        'cli/, scripts/, bench/, test/) import it; the layers use @opentelemetry/api (platform/tracing.ts).',
      severity: 'error',
      from: { path: LAYERS, pathNot: '^(api/server|workers/main)\\.ts$' },
      to: { path: '^telemetry/' },
    },
    {
      name: 'telemetry-imports-nothing-of-ours',
      comment: 'telemetry/ is the OpenTelemetry SDK set-up alone.',
      severity: 'error',
      from: { path: '^telemetry/' },
      to: { path: OURS, pathNot: '^telemetry/' },
    },
    {
      name: 'client-package-standalone',
      comment:
        'client/ is a package of its own (@factura-cr/client): it imports nothing of the service, only its own files and npm packages.',
      severity: 'error',
      from: { path: '^client/' },
      to: { path: OURS, pathNot: '^client/' },
    },
    {
      name: 'service-never-imports-the-client',
      comment: 'The service does not depend on its client package; only tests drive the service through it.',
      severity: 'error',
      from: { path: LAYERS },
      to: { path: '^client/' },
    },
    {
      name: 'web-app-standalone',
      comment:
        "web/ is the browser application: it imports only web/ and the client package's generated schema types (client/src/schema.ts), never the service.",
      severity: 'error',
      from: { path: '^web/' },
      to: { path: OURS, pathNot: '^(web/|client/src/schema\\.ts$)' },
    },
    {
      name: 'nothing-imports-web',
      comment: 'No code of the service imports the application: the API serves its built files only.',
      severity: 'error',
      from: { path: OURS, pathNot: '^web/' },
      to: { path: '^web/' },
    },
    {
      name: 'mcp-through-the-api',
      comment:
        'mcp/ (the assistant server) reaches the service over its REST API only: it imports client/ (and config/), never the layers.',
      severity: 'error',
      from: { path: '^mcp/' },
      to: { path: OURS, pathNot: '^(mcp|client|config)/' },
    },
    {
      name: 'nothing-imports-mcp',
      comment: 'mcp/ is a process of its own: nothing imports it (tests start it as a child process).',
      severity: 'error',
      from: { path: OURS, pathNot: '^mcp/' },
      to: { path: '^mcp/' },
    },
    // simulator: its own rule goes here (what the Hacienda simulator may import).
    {
      name: 'no-circular',
      comment:
        'No import cycles, type-only imports included: modules that need each other share a third one ' +
        'that both import (a shape, a helper), so each can be read, tested and moved on its own.',
      severity: 'error',
      from: { path: OURS },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|\\.local|\\.git|test/artifacts|dist|client/dist|web/dist)/' },
    // Type-only imports count: a type is a dependency on the module that defines it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.tsx', '.js', '.json'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
