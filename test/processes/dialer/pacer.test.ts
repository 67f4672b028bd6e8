/** The pacer on its own: per-account lanes, spacing from each call's start, order, and what costs no slot. */
import t from 'tap'
import { Pacer } from '../../../src/processes/dialer/pacer.ts'

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

t.test('calls in one lane start in order, spaced; other lanes are not held up', async (t) => {
  const pacer = new Pacer()
  const starts: Array<[string, number]> = []
  const call = (account: string, name: string) =>
    pacer.schedule(account, async (started) => {
      starts.push([name, performance.now()])
      started(50)
      return name
    })
  const busy = ['a1', 'a2', 'a3', 'a4'].map((name) => call('acc_a', name))
  const quiet = call('acc_b', 'b1')
  t.equal(await quiet, 'b1')
  t.same(await Promise.all(busy), ['a1', 'a2', 'a3', 'a4'])
  // Order, not wall time (a loaded machine may stall anything): b1 started before a2's spacing was over.
  t.same(starts.slice(0, 2).map(([name]) => name).sort(), ['a1', 'b1'], 'the other account went at once, before a2')
  const a = starts.filter(([name]) => name.startsWith('a'))
  t.same(a.map(([name]) => name), ['a1', 'a2', 'a3', 'a4'], 'in order')
  for (let i = 1; i < a.length; i++) {
    const gap = (a[i]?.[1] as number) - (a[i - 1]?.[1] as number)
    t.ok(gap >= 50, `a${i + 1} ${gap.toFixed(1)} ms after a${i} (≥ 50)`)
  }
})

t.test('a slow call holds the lane only until it has started', async (t) => {
  const pacer = new Pacer()
  // Order, not wall time: timers fire in the order they fall due, however loaded the machine.
  let slowFinished = false
  const slow = pacer.schedule('acc', async (started) => {
    started(20)
    await sleep(1500)
    slowFinished = true
  })
  let startedWhileSlowRan = false
  await pacer.schedule('acc', async (started) => {
    startedWhileSlowRan = !slowFinished
    started(20)
  })
  t.ok(startedWhileSlowRan, 'the next call started after its 20 ms spacing, not after the slow one finished (1,500 ms)')
  await slow
})

t.test('a task that starts no call costs no slot; a failing task frees the lane', async (t) => {
  const pacer = new Pacer()
  // A spacing spent would be a timer due after this one, which would then fire first.
  let halfSpacingPassed = false
  const half = setTimeout(() => (halfSpacingPassed = true), 500)
  await pacer.schedule('acc', async () => 'not ours')
  await t.rejects(pacer.schedule('acc', async () => {
    throw new Error('store down')
  }))
  let startedAtOnce = false
  let firstStartedAt = 0
  await pacer.schedule('acc', async (started) => {
    startedAtOnce = !halfSpacingPassed
    firstStartedAt = performance.now()
    started(1000)
  })
  clearTimeout(half)
  t.ok(startedAtOnce, 'no spacing (1 s) was spent before the first real call')
  t.equal(pacer.activeLanes, 1, 'the lane is kept while its spacing runs')
  // From the first call's start, which the spacing is reckoned from (not from here: a busy machine may get here late).
  let nextStartedAt = 0
  await pacer.schedule('acc', async (started) => {
    nextStartedAt = performance.now()
    started(10)
  })
  t.ok(nextStartedAt - firstStartedAt >= 1000, `the next real call waits its spacing (${(nextStartedAt - firstStartedAt).toFixed(0)} ms)`)
  await sleep(30)
  t.equal(pacer.activeLanes, 0, 'an idle lane is forgotten once its spacing has passed')
})
