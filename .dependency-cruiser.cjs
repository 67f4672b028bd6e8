/**
 * The layer rules of docs/architecture.md, as code: `npm run lint:layers` (part of `npm test`)
 * fails on any import that runs the wrong way. Each rule's comment is what a violation means.
 */
const fs = require('node:fs')
const path = require('node:path')

/** The folders of the ports: each folder inside one is an adapter (a new one is covered as it is made). */
const PORTS = ['src/eventstore', 'src/integrations/carrier', 'src/integrations/payments', 'src/integrations/calendar']
/** Each adapter's folder: its entry (index.ts) is its public surface. */
const ADAPTERS = PORTS.flatMap((port) =>
  fs
    .readdirSync(path.join(__dirname, port), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${port}/${entry.name}`)
    .sort(),
)
const ADAPTER_INTERNALS = `^(${ADAPTERS.join('|')})/`

module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'src/domain imports nothing of ours outside itself: adapters import the domain, never the reverse.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^(src/(?!domain/)|projections/|test/|bench/)' },
    },
    {
      name: 'projections-know-domain-and-runner',
      comment: 'projections/ know the domain and the read-model runner\'s types only.',
      severity: 'error',
      from: { path: '^projections/' },
      to: { path: '^src/(?!domain/|read-models/(projection|statement-cache|views-database)\\.ts$)' },
    },
    {
      name: 'event-store-knows-port-and-domain',
      comment: 'The event store (port, command handler, adapters) knows the domain and configuration, nothing above it.',
      severity: 'error',
      from: { path: '^src/eventstore/' },
      to: { path: '^(src/(commands|processes|http|cli|integrations|read-models|audit|leadline\\.ts)|projections/)' },
    },
    {
      name: 'integrations-know-port-and-domain',
      comment: 'Carrier and payments adapters know their port, the domain and configuration, nothing above them.',
      severity: 'error',
      from: { path: '^src/integrations/' },
      to: { path: '^(src/(commands|processes|http|cli|eventstore|read-models|audit|leadline\\.ts)|projections/)' },
    },
    {
      name: 'read-models-runner-below-projections',
      comment: 'The read-model runner is told its projections by the composition root; it imports none, nor anything above it.',
      severity: 'error',
      from: { path: '^src/read-models/' },
      to: { path: '^(src/(commands|processes|http|cli|integrations|audit|leadline\\.ts)|projections/)' },
    },
    {
      name: 'commands-and-processes-below-the-edges',
      comment: 'Commands and processes know ports, the domain and projections\' queries; never the edges (http, cli) or the composition root.',
      severity: 'error',
      from: { path: '^src/(commands|processes)/' },
      to: { path: '^src/(http|cli|leadline\\.ts)' },
    },
    ...ADAPTERS.map((folder) => ({
      name: 'adapter-through-its-entry',
      comment: `Outside ${folder}/, the adapter is imported through its entry (index.ts) only; the rest of the folder is its own business.`,
      severity: 'error',
      from: { pathNot: `^${folder}/` },
      to: { path: `^${folder}/`, pathNot: `^${folder}/index\\.ts$` },
    })),
    {
      name: 'commands-use-ports-not-adapters',
      comment: 'Commands and processes reach the log and the providers through their ports, never an adapter, not even the embedded store\'s entry.',
      severity: 'error',
      from: { path: '^src/(commands|processes)/' },
      to: { path: ADAPTER_INTERNALS },
    },
    {
      name: 'edges-are-the-top',
      comment: 'Nothing below the edges imports http/ or cli/.',
      severity: 'error',
      from: { path: '^(src/(?!http/|cli/)|projections/)' },
      to: { path: '^src/(http|cli)/' },
    },
    {
      name: 'no-tests-in-src',
      comment: 'Shipped code never imports tests or benchmarks.',
      severity: 'error',
      from: { path: '^(src|projections)/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'no-circular',
      comment: 'No import cycles between our modules.',
      severity: 'error',
      from: { path: '^(src|projections)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
  },
}
