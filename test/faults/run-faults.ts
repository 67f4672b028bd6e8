/**
 * `npm run faults [-- --cycles 50] [--seed N]`: the kill -9 harness of test/faults/crash-load.ts run
 * many times over (default 50 cycles), printing the count and every broken guarantee. Exit 1 when
 * any guarantee broke. Not part of `npm test` (a few minutes); the test suite runs five cycles.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { runCrashCycles } from './crash-load.ts'

async function main(): Promise<number> {
  // `tap test/faults/` picks up every file in the folder: this one is the long run, not a test.
  if (process.env.TAP === '1') {
    console.log('1..0 # SKIP the long kill -9 run: use npm run faults')
    return 0
  }
  const { values } = parseArgs({ options: { cycles: { type: 'string', default: '50' }, seed: { type: 'string' }, keep: { type: 'boolean' } } })
  const cycles = Number(values.cycles)
  if (!Number.isInteger(cycles) || cycles < 1) throw new Error('--cycles must be a whole number above 0')
  const seed = values.seed !== undefined ? Number(values.seed) : Date.now() % 1_000_000
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-faults-'))
  const started = Date.now()
  console.log(`kill -9 under mixed load: ${cycles} cycles, seed ${seed}, files in ${dir}`)
  const report = await runCrashCycles({ cycles, dir, seed, log: (line) => console.log(`  ${line}`) })
  const seconds = Math.round((Date.now() - started) / 1000)
  console.log(
    [
      `kill/restart cycles:            ${report.cycles}`,
      `webhook submissions acked:      ${report.submissionsAcknowledged} (${report.leadsAcknowledged} people)`,
      `tool results acked:             ${report.toolResultsAcknowledged}`,
      `status callbacks acked:         ${report.callbacksAcknowledged}`,
      `calls placed at fake Twilio:    ${report.callsPlaced}`,
      `Checkout Sessions at fake Stripe: ${report.checkoutSessions}`,
      `pay-link texts:                 ${report.textsSent}`,
      `time:                           ${seconds} s`,
    ].join('\n'),
  )
  if (!values.keep) fs.rmSync(dir, { recursive: true, force: true })
  if (report.problems.length === 0) {
    console.log(`RESULT: PASS: ${report.cycles} kill -9 cycles; nothing acknowledged lost, no one rung, charged or texted twice; hash chain and read models verified`)
    return 0
  }
  console.log(`RESULT: FAIL: ${report.problems.length} problem(s) (seed ${seed}; rerun with --seed ${seed} --keep):`)
  for (const problem of report.problems) console.log(`  - ${problem}`)
  return 1
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error)
    process.exit(2)
  },
)
