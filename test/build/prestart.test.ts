/**
 * `npm start`'s prestart (bin/prestart.js, issue #41), on a checkout of its own in a test directory:
 * nothing changed since the last build starts without a check or a build; a changed, added or
 * deleted source is checked first and then built; a bad setting stops it before the build.
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { ROOT } from '../helpers/cli.ts'

// Stand-ins for the real check and build: each writes what it did to a log, as the real ones would act.
const FAKE_CLI = `import fs from 'node:fs'
fs.appendFileSync(new URL('../log', import.meta.url), 'check ' + process.argv.slice(2).join(' ') + '\\n')
if (process.env.BAD_SETTING) { process.stderr.write('leadline: invalid configuration:\\n  - PORT: must be a TCP port number\\n'); process.exit(2) }
`
const FAKE_BUILD = "node -e \"const fs=require('fs');fs.mkdirSync('dist/src/cli',{recursive:true});fs.writeFileSync('dist/src/cli/bin.js','');fs.appendFileSync('log','build\\n')\""

function checkout(t: Pick<Test, 'testdir'>): string {
  const dir = t.testdir({
    bin: { 'leadline.js': FAKE_CLI },
    src: { 'a.ts': 'export {}\n', cli: { 'bin.ts': '' } },
    projections: { 'p.ts': '' },
    'package.json': JSON.stringify({ name: 'prestart-fixture', type: 'module', scripts: { build: FAKE_BUILD } }),
    log: '',
  })
  fs.copyFileSync(path.join(ROOT, 'bin', 'prestart.js'), path.join(dir, 'bin', 'prestart.js'))
  return dir
}

function prestart(dir: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stderr: string; log: string }> {
  fs.writeFileSync(path.join(dir, 'log'), '')
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(dir, 'bin', 'prestart.js')], { cwd: dir, env: { ...process.env, ...env } }, (error, _stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stderr, log: fs.readFileSync(path.join(dir, 'log'), 'utf8') })
    })
  })
}

/** Every input two minutes old, the last build one minute old: what a checkout looks like between starts. */
function settle(dir: string): void {
  const at = (seconds: number) => new Date(Date.now() - seconds * 1000)
  for (const input of ['src/a.ts', 'src/cli/bin.ts', 'src/cli', 'src', 'projections/p.ts', 'projections', 'package.json']) {
    if (fs.existsSync(path.join(dir, input))) fs.utimesSync(path.join(dir, input), at(120), at(120))
  }
  fs.utimesSync(path.join(dir, 'dist', 'src', 'cli', 'bin.js'), at(60), at(60))
}

function touch(dir: string, file: string): void {
  fs.utimesSync(path.join(dir, file), new Date(), new Date())
}

t.test('builds when nothing was built or a source changed, after the check; otherwise does nothing', async (t) => {
  const dir = checkout(t)
  const first = await prestart(dir)
  t.equal(first.code, 0, first.stderr)
  t.equal(first.log, 'check config --check\nbuild\n', 'nothing built yet: checked, then built')
  t.match(first.stderr, 'sources changed since the last build: building')

  const fresh = await prestart(dir)
  t.equal(fresh.code, 0)
  t.equal(fresh.log, '', 'nothing changed: no check, no build')

  settle(dir)
  t.equal((await prestart(dir)).log, '', 'an older build with older sources: nothing to do')
  touch(dir, 'src/cli/bin.ts')
  t.equal((await prestart(dir)).log, 'check config --check\nbuild\n', 'a changed source is built')
  t.equal((await prestart(dir)).log, '', 'and once built, not again')

  settle(dir)
  touch(dir, 'package.json')
  t.equal((await prestart(dir)).log, 'check config --check\nbuild\n', 'so is a changed package.json')

  settle(dir)
  fs.rmSync(path.join(dir, 'src', 'a.ts'))
  t.equal((await prestart(dir)).log, 'check config --check\nbuild\n', 'a deleted source is a change too (its directory changed)')
})

t.test('a bad setting stops it before the build', async (t) => {
  const dir = checkout(t)
  const refused = await prestart(dir, { BAD_SETTING: '1' })
  t.equal(refused.code, 2)
  t.equal(refused.log, 'check config --check\n', 'checked, never built')
  t.match(refused.stderr, 'PORT: must be a TCP port number')
  t.notOk(fs.existsSync(path.join(dir, 'dist')))
})
