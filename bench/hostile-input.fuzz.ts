/**
 * npm run fuzz — the long fuzz run: at least 100,000 hostile requests (generated and mutated real
 * captures) at the webhook, the tool endpoint and the Twilio and Stripe callbacks, through
 * `app.inject`, each checked against every invariant of fuzz-harness.ts. Prints the count, the time
 * and the settled heap before and after; exits 1 on the first broken invariant (shrunk, with its seed).
 *
 *   npm run fuzz [-- --cases 100000 --seed 42 --target webhook]
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import fc from 'fast-check'
import { TARGETS, corpus, describe, openFuzzTarget, requestsFor, settledHeapMb, type Target } from '../test/helpers/fuzz-harness.ts'

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: '100000' },
    seed: { type: 'string' },
    target: { type: 'string', multiple: true },
  },
})
const cases = Number(values.cases)
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed)
const targets = (values.target ?? [...TARGETS]) as Target[]
for (const target of targets) if (!TARGETS.includes(target)) throw new Error(`unknown target ${target} (${TARGETS.join(', ')})`)

// The webhook and the tool endpoint take most of the cases: they are the doors anyone can knock on.
const SHARE: Record<Target, number> = { webhook: 0.4, mcp: 0.4, twilio: 0.1, stripe: 0.1 }
const total = targets.reduce((sum, target) => sum + SHARE[target], 0)

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadline-fuzz-'))
const fuzz = await openFuzzTarget(dir, { keysPerScopeSet: 20 })
const captured = corpus()
const heapBefore = await settledHeapMb()
const started = performance.now()
let count = 0
const counts: Partial<Record<Target, number>> = {}
let failed = false
try {
  for (const [i, target] of targets.entries()) {
    const numRuns = Math.ceil((cases * SHARE[target]) / total)
    const t0 = performance.now()
    const result = await fc.check(
      fc.asyncProperty(requestsFor(target, fuzz.world, captured), async (request) => {
        count++
        counts[target] = (counts[target] ?? 0) + 1
        const problems = await fuzz.run(request)
        if (problems.length > 0) throw new Error(`${problems.join('; ')}\n  request: ${describe(request)}`)
      }),
      { numRuns, seed: seed + i, endOnFailure: false, maxSkipsPerRun: 0 },
    )
    process.stderr.write(`${target}: ${counts[target]} cases in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`)
    if (result.failed) {
      failed = true
      console.error(fc.defaultReportMessage(result))
      console.error(String((result.errorInstance as Error | undefined)?.message ?? result.errorInstance))
      break
    }
  }
} finally {
  await fuzz.close()
  fs.rmSync(dir, { recursive: true, force: true })
}
const seconds = (performance.now() - started) / 1000
const heapAfter = await settledHeapMb()
console.log(
  JSON.stringify(
    { cases: count, byTarget: counts, seconds: Number(seconds.toFixed(1)), casesPerSecond: Math.round(count / seconds), seed, heapMb: { before: Math.round(heapBefore), after: Math.round(heapAfter) }, failed },
    null,
    2,
  ),
)
console.log(`${failed ? 'FAILED after' : 'fuzzed'} ${count} cases in ${seconds.toFixed(1)} s`)
process.exitCode = failed ? 1 : 0
