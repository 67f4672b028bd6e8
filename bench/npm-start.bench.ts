/**
 * bench:start — how long `npm start` takes to listen (issue #41): a first start that builds (sources
 * newer than dist/), then starts with nothing changed, which must be listening in under 5 s on the
 * reference machine; and a malformed setting with stale sources, which must be refused before any
 * build. Each start is `npm start` as a person runs it, timed from spawn to the first 200 of /healthz.
 *
 *   npm run bench:start [-- --runs 3]
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { median, ROOT } from './bench-kit.ts'
import { freePort } from '../test/helpers/cli.ts'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' } } })
const runs = Number(values.runs)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-start-'))
const BUILT = path.join(ROOT, 'dist', 'src', 'cli', 'bin.js')

/** `npm start` until it listens (or exits); the seconds it took, and whether it built. */
async function npmStart(env: NodeJS.ProcessEnv, command: readonly string[] = ['npm', 'start', '--silent']): Promise<{ seconds: number; built: boolean; code: number | null; output: string }> {
  const port = await freePort()
  const started = performance.now()
  const child = spawn(command[0]!, command.slice(1), { cwd: ROOT, env: { ...process.env, LEADLINE_STORE: `sqlite:${path.join(dir, 'leadline.db')}`, LOG_LEVEL: 'warn', PORT: String(port), ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let output = ''
  child.stdout.on('data', (d) => (output += String(d)))
  child.stderr.on('data', (d) => (output += String(d)))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  let code: number | null = null
  for (;;) {
    if (child.exitCode !== null) {
      code = child.exitCode
      break
    }
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  const seconds = (performance.now() - started) / 1000
  if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM')
  await exited
  return { seconds, built: output.includes('building (npm run build)'), code, output }
}

// A source newer than the build: the next start builds, after checking the settings.
const touch = () => fs.utimesSync(path.join(ROOT, 'src', 'cli', 'bin.ts'), new Date(), new Date())

touch()
const builtBefore = fs.existsSync(BUILT) ? fs.statSync(BUILT).mtimeMs : 0
const refused = await npmStart({ PORT: 'abc' })
const rebuilt = fs.existsSync(BUILT) && fs.statSync(BUILT).mtimeMs !== builtBefore
console.log(`bad PORT, sources changed: exit ${refused.code} in ${refused.seconds.toFixed(1)} s, ${rebuilt ? 'BUILT (wrong)' : 'nothing built'}: ${refused.output.trim().split('\n').slice(-1)[0]}`)

const first = await npmStart({})
console.log(`first start (sources changed, builds): listening in ${first.seconds.toFixed(1)} s${first.built ? '' : ' (did not build?)'}`)
const again: number[] = []
const bare: number[] = []
// Interleaved with the built server started directly (what npm start runs after its check), so the
// check's own cost shows apart from the machine's load.
const SERVE = [process.execPath, '--max-old-space-size=128', '--max-semi-space-size=8', '--v8-pool-size=1', BUILT, 'serve']
for (let i = 0; i < runs; i++) {
  const next = await npmStart({})
  if (next.built) console.log('  a start with nothing changed built: wrong')
  again.push(next.seconds)
  bare.push((await npmStart({}, SERVE)).seconds)
}
console.log(`second start (nothing changed): listening in ${again.map((s) => s.toFixed(1)).join(', ')} s; median ${median(again).toFixed(1)} s (target < 5 s)`)
console.log(`the built server alone (node dist/src/cli/bin.js serve): ${bare.map((s) => s.toFixed(1)).join(', ')} s; median ${median(bare).toFixed(1)} s`)
console.log(`load average at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(', ')} on ${os.cpus().length} CPUs`)
fs.rmSync(dir, { recursive: true, force: true })
