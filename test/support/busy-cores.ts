// Keeps every core of the machine busy, for a bounded time, to check that the tests hold on a loaded
// machine (README: "Steady under load"). One thread a core spins; the process stops by itself.
//
//   node --import tsx test/support/busy-cores.ts [--seconds 900] [--threads N]
//       busy until the time is up (or Ctrl-C)
//   node --import tsx test/support/busy-cores.ts [--seconds 3600] [--times 5] -- npm test
//       busy while the command runs, `--times` times in a row; prints each run's exit code and time,
//       and exits 0 only when every run passed
import { spawn, type ChildProcess } from 'node:child_process'
import os from 'node:os'
import { Worker } from 'node:worker_threads'

/** A spinning thread, in plain JavaScript (a worker gets no TypeScript loader): spins in slices, so it sees the stop message between them. */
const SPINNER = `
const { parentPort } = require('node:worker_threads')
let stop = false
parentPort.on('message', () => (stop = true))
let x = 0
const slice = () => {
  const until = Date.now() + 50
  while (Date.now() < until) x = (x * 31 + 7) % 1000003
  if (stop) parentPort.close()
  else setImmediate(slice)
}
slice()
`

{
  const args = process.argv.slice(2)
  const dash = args.indexOf('--')
  const options = dash === -1 ? args : args.slice(0, dash)
  const command = dash === -1 ? [] : args.slice(dash + 1)
  const option = (name: string, fallback: number): number => {
    const at = options.indexOf(`--${name}`)
    const value = at === -1 ? fallback : Number(options[at + 1])
    if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`)
    return value
  }
  const seconds = option('seconds', command.length === 0 ? 900 : 3600)
  const threads = option('threads', os.availableParallelism())
  const times = option('times', 1)

  const workers = Array.from({ length: threads }, () => new Worker(SPINNER, { eval: true }))
  const stopAll = () => {
    for (const worker of workers) worker.postMessage('stop')
  }
  // The bound: whatever happens to the command, the cores are freed by then.
  const bound = setTimeout(() => {
    console.error(`busy-cores: ${seconds} s are up; stopping`)
    stopAll()
    process.exit(command.length === 0 ? 0 : 1)
  }, seconds * 1000)
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      stopAll()
      process.exit(130)
    })
  }
  console.error(`busy-cores: ${threads} spinning threads for at most ${seconds} s (load average now ${os.loadavg()[0]?.toFixed(1)})`)

  if (command.length > 0) {
    let child: ChildProcess | undefined
    const runOnce = () =>
      new Promise<number>((resolve) => {
        child = spawn(command[0] as string, command.slice(1), { stdio: 'inherit' })
        child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)))
        child.once('error', () => resolve(127))
      })
    process.once('exit', () => child?.exitCode === null && child.kill('SIGTERM'))
    let passed = 0
    for (let run = 1; run <= times; run++) {
      const started = Date.now()
      const code = await runOnce()
      if (code === 0) passed++
      console.error(`busy-cores: run ${run} of ${times}: exit ${code} in ${((Date.now() - started) / 1000).toFixed(0)} s (load average ${os.loadavg()[0]?.toFixed(1)})`)
    }
    console.error(`busy-cores: ${passed} of ${times} runs passed`)
    clearTimeout(bound)
    stopAll()
    process.exitCode = passed === times ? 0 : 1
  }
}
