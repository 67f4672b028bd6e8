/**
 * The layer rules (.dependency-cruiser.cjs, docs/architecture.md) hold for the tree, and the
 * check refuses an import that runs the wrong way: a tree made here breaks one rule of each kind.
 */
import { execFile } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const root = fileURLToPath(new URL('../../', import.meta.url))
const depcruise = path.join(root, 'node_modules', '.bin', 'depcruise')
const config = path.join(root, '.dependency-cruiser.cjs')
const run = promisify(execFile)

interface Violation {
  readonly rule: { readonly name: string }
  readonly from: string
  readonly to: string
}

async function violations(cwd: string, ...targets: string[]): Promise<string[]> {
  // depcruise exits non-zero when it finds violations; the JSON report says which.
  const { stdout } = await run(depcruise, ['--config', config, '--output-type', 'json', ...targets], { cwd, maxBuffer: 64 * 1024 * 1024 }).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
  )
  const report = JSON.parse(stdout) as { summary: { violations: Violation[] } }
  return report.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort()
}

t.test('the tree keeps every layer rule', async (t) => {
  t.same(await violations(root, 'src', 'projections'), [])
})

t.test('an import that runs the wrong way is refused, by the rule it breaks', async (t) => {
  const dir = t.testdir({
    'tsconfig.json': JSON.stringify({ compilerOptions: { allowImportingTsExtensions: true, noEmit: true, module: 'nodenext' } }),
    src: {
      domain: {
        'lead.ts': "import { route } from '../http/route.ts'\nexport const lead = route\n",
        'a.ts': "import { b } from './b.ts'\nexport const a = 1\nexport const ab = b\n",
        'b.ts': "import { a } from './a.ts'\nexport const b = 2\nexport const ba = a\n",
      },
      http: { 'route.ts': 'export const route = 1\n' },
      commands: { 'call.ts': "import { writer } from '../eventstore/sqlite/writer.ts'\nexport const call = writer\n" },
      eventstore: { sqlite: { 'writer.ts': 'export const writer = 1\n', 'index.ts': "export { writer } from './writer.ts'\n" } },
      'read-models': { 'runner.ts': "import { view } from '../../projections/view.ts'\nexport const runner = view\n" },
    },
    projections: { 'view.ts': "import { route } from '../src/http/route.ts'\nexport const view = route\n" },
  })
  t.same(await violations(dir, 'src', 'projections'), [
    'adapter-through-its-entry: src/commands/call.ts -> src/eventstore/sqlite/writer.ts',
    'commands-use-ports-not-adapters: src/commands/call.ts -> src/eventstore/sqlite/writer.ts',
    'domain-is-pure: src/domain/lead.ts -> src/http/route.ts',
    'edges-are-the-top: projections/view.ts -> src/http/route.ts',
    'edges-are-the-top: src/domain/lead.ts -> src/http/route.ts',
    'no-circular: src/domain/a.ts -> src/domain/b.ts',
    'projections-know-domain-and-runner: projections/view.ts -> src/http/route.ts',
    'read-models-runner-below-projections: src/read-models/runner.ts -> projections/view.ts',
  ])
})
