/**
 * Runs the EventStoreDB test double (esdb-double.ts) as a process of its own, for tests that start
 * several Leadline nodes on one store, or to try Leadline against it by hand:
 *
 *   node --import tsx test/doubles/esdb/serve-esdb-double.ts [--port 2113] [--no-batch-append]
 *
 * Prints one line, `esdb-double listening {"port":…,"url":"esdb://127.0.0.1:…?tls=false"}`, then
 * reads commands, one per line, on standard input and answers each with one JSON line:
 *   hold | release        stop / resume delivery to every subscription
 *   stats                 calls served and events in the log
 *   system STREAM TYPE    writes a system event
 *   restart               drops every connection, listens again with the same log
 * It stops on SIGTERM / SIGINT, or when standard input closes.
 */
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'
import { startEsdbDouble } from './esdb-double.ts'

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' }, 'no-batch-append': { type: 'boolean', default: false } } })
const double = await startEsdbDouble({ port: Number(values.port), batchAppend: !values['no-batch-append'] })
process.stdout.write(`esdb-double listening ${JSON.stringify({ port: double.port, url: double.url })}\n`)

let stopping = false
async function stop(): Promise<void> {
  if (stopping) return
  stopping = true
  await double.close()
  process.exit(0)
}
process.once('SIGTERM', () => void stop())
process.once('SIGINT', () => void stop())

const lines = createInterface({ input: process.stdin })
lines.on('line', (line) => {
  const [command, ...args] = line.trim().split(/\s+/)
  const answer = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`)
  switch (command) {
    case 'hold':
      double.hold()
      return answer({ held: true })
    case 'release':
      double.release()
      return answer({ held: false })
    case 'stats':
      return answer({ ...double.stats, events: double.log.eventCount, end: double.log.endPosition.toString() })
    case 'system':
      double.log.writeSystemEvent(args[0] ?? '$stats', args[1] ?? '$statistics-collected', {})
      return answer({ written: true })
    case 'restart':
      void double.restart().then(() => answer({ restarted: true }))
      return
    case '':
    case undefined:
      return
    default:
      return answer({ error: `unknown command ${command}` })
  }
})
lines.on('close', () => void stop())
