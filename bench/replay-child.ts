/**
 * One measurement of bench:replay, in a process of its own so that its peak RSS is its own:
 *
 *   node --import tsx bench/replay-child.ts scan LOG DIR     raw scan: SELECT * FROM events + JSON.parse
 *   node --import tsx bench/replay-child.ts replay LOG DIR   `leadline replay --all` into fresh read models in DIR
 *
 * Prints one JSON line. The scan loads nothing but better-sqlite3; the replay loads what the CLI does.
 */
import path from 'node:path'
import Database from 'better-sqlite3'

export interface ScanResult {
  readonly events: number
  /** Wall-clock time of the work (not of loading the modules). */
  readonly ms: number
  /** CPU time (user + system) of the work: the measure that holds on a busy machine. */
  readonly cpuMs: number
  readonly maxRssMb: number
}

export interface ReplayRun extends ScanResult {
  /** How long the live read models were locked for the switch. */
  readonly switchMs: number
  readonly digest: string
}

const [mode, log, dir] = process.argv.slice(2)
const maxRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024)
const cpuMsSince = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start)
  return (used.user + used.system) / 1000
}

if (mode === 'scan') {
  const db = new Database(log as string, { readonly: true })
  const cpu = process.cpuUsage()
  const started = performance.now()
  let events = 0
  for (const row of db.prepare('SELECT * FROM events ORDER BY position').iterate() as Iterable<{ data: string; metadata: string }>) {
    const data = JSON.parse(row.data) as unknown
    const metadata = JSON.parse(row.metadata) as unknown
    if (data !== undefined && metadata !== undefined) events++
  }
  const ms = performance.now() - started
  const cpuMs = cpuMsSince(cpu)
  db.close()
  process.stdout.write(`${JSON.stringify({ events, ms, cpuMs, maxRssMb: maxRssMb() } satisfies ScanResult)}\n`)
} else if (mode === 'replay') {
  const { replay } = await import('../src/audit/replay.ts')
  const { openSqliteEventStore } = await import('../src/eventstore/sqlite/index.ts')
  const { PROJECTIONS } = await import('../src/leadline.ts')
  const { openViewsDatabase } = await import('../src/read-models/views-database.ts')
  const store = openSqliteEventStore({ path: log as string })
  const live = openViewsDatabase(path.join(dir as string, 'views.db'))
  let cpuAtEnd: NodeJS.CpuUsage | null = null
  const cpu = process.cpuUsage()
  const result = await replay({
    store, live, scratchPath: path.join(dir as string, 'scratch.db'), projections: PROJECTIONS, mode: 'switch',
    // The rebuild ends with the last progress report: CPU time up to there, like `ms` (rebuildMs).
    onProgress: () => (cpuAtEnd = process.cpuUsage(cpu)),
  })
  const rebuildCpu = cpuAtEnd as NodeJS.CpuUsage | null
  const cpuMs = rebuildCpu === null ? 0 : (rebuildCpu.user + rebuildCpu.system) / 1000
  live.close()
  await store.close()
  const run: ReplayRun = { events: result.events, ms: result.rebuildMs, cpuMs, switchMs: result.switchMs ?? 0, maxRssMb: maxRssMb(), digest: result.digest }
  process.stdout.write(`${JSON.stringify(run)}\n`)
} else {
  process.stderr.write('usage: replay-child.ts scan|replay LOG DIR\n')
  process.exitCode = 2
}
