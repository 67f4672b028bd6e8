/**
 * `leadline replay`: rebuilds read models from position 0 into a fresh database and switches the live
 * ones over in one transaction, also while a server keeps serving; `--verify` compares instead and
 * reports every difference (exit 1). Reads the log only.
 */
import { openLogForReading } from '../../audit/audited-log.ts'
import { printable } from '../../domain/shared/printable.ts'
import { replay, scratchPathFor, type ReplayResult } from '../../audit/replay.ts'
import { PROJECTIONS } from '../../leadline.ts'
import type { Projection } from '../../read-models/projection.ts'
import { openViewsDatabase } from '../../read-models/views-database.ts'
import { config, json, parse, UsageError, type Io } from '../cli-io.ts'
import { formatCount } from '../progress-bar.ts'
import { AuditFailedError, progressBar } from './audit.command.ts'

function selectProjections(names: readonly string[] | undefined, all: boolean): readonly Projection[] {
  if (names !== undefined && names.length > 0 && all) throw new UsageError('use either --projection NAME or --all')
  if (names === undefined || names.length === 0) return PROJECTIONS
  const known = PROJECTIONS.map((p) => p.name)
  return [...new Set(names)].map((name) => {
    const projection = PROJECTIONS.find((p) => p.name === name)
    if (!projection) throw new UsageError(`unknown projection "${printable(name)}" (known: ${known.join(', ')})`)
    return projection
  })
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`
}

function readable(result: ReplayResult): string {
  const names = result.projections.map((p) => p.name).join(', ')
  const rows = result.tables.reduce((n, t) => n + t.rows, 0)
  const first = `replayed ${formatCount(result.events)} events in ${seconds(result.rebuildMs)} (${formatCount(result.eventsPerSecond)} events/s) into ${names}`
  const digest = `read models sha256:${result.digest}`
  if (result.mode === 'switch') {
    const during = result.appliedDuringSwitch ? `, ${formatCount(result.appliedDuringSwitch)} newer events applied in the switch` : ''
    return `${first}\nswitched over at position ${formatCount(result.switchedTo ?? 0)} (${result.tables.length} tables, ${formatCount(rows)} rows${during}, ${Math.round(result.switchMs ?? 0)} ms); ${digest}`
  }
  const differences = result.differences ?? []
  if (differences.length === 0) {
    return `${first}\nverify: identical to the live read models at position ${formatCount(result.comparedAt ?? 0)} (${result.tables.length} tables); ${digest}`
  }
  const lines = [first, `verify: ${differences.length} ${differences.length === 1 ? 'difference' : 'differences'} from the live read models at position ${formatCount(result.comparedAt ?? 0)}:`]
  for (const difference of differences) {
    lines.push(`  ${difference.message}`)
    for (const row of difference.onlyLive) lines.push(`    only live:    ${printable(JSON.stringify(row), 400)}`)
    for (const row of difference.onlyRebuilt) lines.push(`    only rebuilt: ${printable(JSON.stringify(row), 400)}`)
  }
  return lines.join('\n')
}

export async function replayCommand(args: string[], io: Io): Promise<void> {
  const { values } = parse(args, {
    projection: { type: 'string', multiple: true },
    all: { type: 'boolean' },
    verify: { type: 'boolean' },
    json: { type: 'boolean' },
  })
  const projections = selectProjections(values.projection, values.all === true)
  const cfg = config(io)
  const store = await openLogForReading(cfg.store)
  try {
    const live = openViewsDatabase(cfg.viewsPath)
    try {
      const bar = progressBar(io, values.verify ? 'verify' : 'replay')
      const result = await replay({
        store,
        live,
        scratchPath: scratchPathFor(cfg.viewsPath),
        projections,
        mode: values.verify ? 'verify' : 'switch',
        ...(bar ? { onProgress: (p) => bar.update({ done: p.events, position: p.position, end: p.head, elapsedMs: p.elapsedMs }) } : {}),
      })
      bar?.finish()
      io.out(values.json ? json(result) : readable(result))
      const differences = result.differences?.length ?? 0
      if (differences > 0) throw new AuditFailedError(`replay --verify: ${differences} ${differences === 1 ? 'difference' : 'differences'} between the live and the rebuilt read models`)
    } finally {
      live.close()
    }
  } finally {
    await store.close()
  }
}
