import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import t, { type Test } from 'tap'
import { EffectProcesses, loadEffectProcesses, type EffectProcessDeps } from '../../src/processes/effect-processes.ts'
import { EffectProcess } from '../../src/processes/effect-process.ts'
import { Dialer } from '../../src/processes/dialer/dialer.process.ts'
import { Texter } from '../../src/processes/texter/texter.process.ts'
import { PayLinkSender } from '../../src/processes/pay-link-sender/pay-link-sender.process.ts'
import { FacebookLeadFetcher } from '../../src/processes/facebook-lead-fetcher/facebook-lead-fetcher.process.ts'
import { buildApp } from '../helpers/build-app.ts'

const EFFECT_PROCESS_MODULE = pathToFileURL(path.resolve('src/processes/effect-process.ts')).href

/** A process folder as a newcomer would write one: `<name>/<name>.process.ts` exporting `createEffectProcess`. */
function writeProcess(dir: string, name: string, body: string): void {
  fs.mkdirSync(path.join(dir, name))
  fs.writeFileSync(path.join(dir, name, `${name}.process.ts`), body)
}

const demoProcess = (name: string): string => `
import { EffectProcess } from '${EFFECT_PROCESS_MODULE}'
export class Demo extends EffectProcess {
  effect = { name: '${name}', decision: 'DemoDecided', decidedAt: 'decidedAt', id: 'demoId', claims: {}, outcomes: [] }
  async resume() {}
  async markUnknown() { return false }
}
export const createEffectProcess = (deps) => new Demo(deps)
`

/** A folder of processes outside the project: an ES module scope as `src/` is, so the files import the app's own modules, not CommonJS copies of them. */
function processesDir(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-processes-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n')
  return dir
}

t.test("a process is found by its folder's file: nothing else names it", async (t) => {
  const dir = processesDir(t)
  writeProcess(dir, 'demo', demoProcess('demo'))
  // A process manager that is not an effect process (no createEffectProcess), a process not set up on this node (null), a stray file.
  writeProcess(dir, 'timers', 'export class Timers {}\n')
  writeProcess(dir, 'unset', 'export const createEffectProcess = () => null\n')
  fs.writeFileSync(path.join(dir, 'helper.ts'), 'export const x = 1\n')
  fs.mkdirSync(path.join(dir, 'misnamed'))
  fs.writeFileSync(path.join(dir, 'misnamed', 'other.process.ts'), demoProcess('misnamed'))

  const effects = await loadEffectProcesses({} as EffectProcessDeps, dir)
  t.same(effects.all.map((p) => p.name), ['demo'], 'only the folder whose own file makes a process')
  const { Demo } = (await import(pathToFileURL(path.join(dir, 'demo', 'demo.process.ts')).href)) as { Demo: typeof Dialer }
  t.equal(effects.get(Demo), effects.all[0], 'reached by its class')
  t.ok(effects.all[0] instanceof EffectProcess, "built on the app's own EffectProcess, not a copy of it")
  t.equal(effects.find(Texter), undefined, 'a class this node has none of: find says so')
  t.throws(() => effects.get(Texter), /no Texter on this node/, 'and get refuses')
})

t.test('two processes of one effect are refused at start', async (t) => {
  const dir = processesDir(t)
  writeProcess(dir, 'first', demoProcess('same'))
  writeProcess(dir, 'second', demoProcess('same'))
  await t.rejects(loadEffectProcesses({} as EffectProcessDeps, dir), /two effect processes perform the same effect/)
  t.throws(() => new EffectProcesses([]).get(Dialer), /no Dialer/)
})

t.test("Leadline's own: the dialer, the number buyer, the pay-link sender and the texter; Facebook's fetcher only with FACEBOOK_* set", async (t) => {
  const app = await buildApp(t)
  t.same(app.leadline.effects.all.map((p) => p.name).sort(), ['dialer', 'number-buyer', 'pay-link-sender', 'texter'])
  t.equal(app.leadline.effects.get(Dialer), app.leadline.dialer)
  t.ok(app.leadline.effects.get(PayLinkSender) instanceof PayLinkSender)
  t.equal(app.leadline.effects.find(FacebookLeadFetcher), undefined)
  t.equal(app.leadline.facebook, null)
})
