/**
 * `leadline migrate --to esdb://…`: copies the embedded log into EventStoreDB, in log order, every
 * event with its id, recordedAt and hash chain (only the global positions change). Idempotent and
 * resumable: an event already in the target (same id, same hash) is skipped, and where the last run
 * stopped is kept beside the embedded log, so a second run copies only what is new. It is safe while
 * the embedded server still runs: run it again after stopping the server to copy the rest, then
 * switch LEADLINE_STORE. Afterwards the copy is checked event by event against the source, every
 * hash is recomputed, and `leadline audit verify` runs on the target when this build has it.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import type { RecordedEvent } from '../../domain/event.ts'
import type { EventStore } from '../../eventstore/event-store.port.ts'
import { hashEvent } from '../../eventstore/hash-chain.ts'
import { ESDB_STORE } from '../../eventstore/open-event-store.ts'
import { openSqliteEventStore } from '../../eventstore/sqlite/index.ts'
import { openEsdbEventStore, redactConnectionString, type EsdbEventStore } from '../../eventstore/eventstoredb/index.ts'
import { config, json, parse, processIo, required, UsageError, type Io } from '../cli-io.ts'
import { formatCount, formatProgress, ProgressBar } from '../progress-bar.ts'
import { sha256Hex } from '../../domain/shared/sha256.ts'

type Command = (args: string[], io: Io) => Promise<void>

export interface MigrateDependencies {
  /** `leadline audit` when this build has it: run as `audit verify` on the target after the copy. */
  readonly audit?: Command | undefined
}

/** Events read from the source per page; the resume point is saved after each. */
const PAGE = 1000
/** At most this many events of one stream in one append. */
const MAX_RUN = 200
/** Streams read at once while verifying. */
const VERIFY_CONCURRENCY = 16
const SILENT = { info() {}, warn() {} }

export class MigrationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'MigrationError'
  }
}

export async function migrateCommand(args: string[], io: Io, deps: MigrateDependencies = {}): Promise<void> {
  const { values } = parse(args, { to: { type: 'string' }, from: { type: 'string' }, json: { type: 'boolean' } })
  const target = required(values.to, '--to')
  if (!ESDB_STORE.test(target)) throw new UsageError('--to takes an EventStoreDB connection string, such as esdb://localhost:2113?tls=false')
  const from = values.from ?? config(io).store
  if (!from.startsWith('sqlite:')) throw new UsageError(`--from takes the embedded log, sqlite:PATH (LEADLINE_STORE is ${redactConnectionString(from)})`)
  const sourcePath = from.slice('sqlite:'.length)
  if (!existsSync(sourcePath)) throw new UsageError(`there is no embedded log at ${sourcePath}`)

  const source = openSqliteEventStore({ path: sourcePath })
  const destination = openEsdbEventStore({ connectionString: target, logger: SILENT })
  const shown = redactConnectionString(target)
  try {
    const resume = new ResumePoint(`${sourcePath}.migrate.json`, target)
    const total = await source.headPosition()
    const startAt = resume.position()
    if (!values.json) {
      io.err(startAt > 0 ? `migrate: resuming the copy to ${shown} after position ${startAt} of ${total}` : `migrate: copying ${sourcePath} to ${shown}`)
    }
    const bar = new CopyProgress(io, total, values.json === true, startAt)
    bar.update(startAt)
    const copied = await copy(source, destination, startAt, (position, counts) => {
      resume.save(position, counts)
      bar.update(position)
    })
    bar.done()

    if (!values.json) io.err('migrate: verifying the copy event by event')
    const verified = await verify(source, destination)
    let audit: unknown = 'not available in this build'
    if (deps.audit) {
      // The audit reads LEADLINE_STORE and walks the target's hash chains by itself; it throws when one fails.
      if (!values.json) io.err('migrate: running leadline audit verify on the target')
      const report: string[] = []
      await deps.audit(['verify', ...(values.json ? ['--json'] : [])], { out: (text) => void report.push(text), err: io.err, env: { ...io.env, LEADLINE_STORE: target } })
      audit = values.json ? JSON.parse(report.join('\n')) : report.join('\n').trim()
    }
    const summary = {
      from: sourcePath,
      to: shown,
      events: verified.events,
      streams: verified.streams,
      copiedNow: copied.imported,
      alreadyThere: copied.skipped,
      verified: true,
      audit,
    }
    if (values.json) io.out(json(summary))
    else {
      io.out(
        `migrated ${formatCount(summary.events)} events in ${formatCount(summary.streams)} streams to ${shown} ` +
          `(${formatCount(summary.copiedNow)} copied now, ${formatCount(summary.alreadyThere)} already there); every event verified against the source`,
      )
      io.out(deps.audit ? `leadline audit verify on the target: ${String(audit)}` : 'leadline audit verify: not available in this build')
      io.out(`next: stop the embedded server, run this command again, then set LEADLINE_STORE=${shown}`)
    }
  } finally {
    await destination.close()
    await source.close()
  }
}

interface CopyCounts {
  imported: number
  skipped: number
}

/** Copies every event after `after`, in log order, one append per run of events of the same stream. */
async function copy(
  source: EventStore,
  target: EsdbEventStore,
  after: number,
  onPage: (position: number, counts: CopyCounts) => void,
): Promise<CopyCounts> {
  const counts: CopyCounts = { imported: 0, skipped: 0 }
  let position = after
  for (;;) {
    const page = await source.readAll({ fromPosition: position + 1, limit: PAGE })
    if (page.length === 0) return counts
    for (const run of runs(page)) {
      const first = run[0] as RecordedEvent
      const result = await target.importRecorded(first.stream, run).catch((error: unknown) => {
        throw new MigrationError(`cannot copy ${first.stream}: ${(error as Error).message}`, { cause: error })
      })
      counts.imported += result.imported
      counts.skipped += run.length - result.imported
    }
    position = (page[page.length - 1] as RecordedEvent).position
    onPage(position, counts)
  }
}

/** Consecutive events of the same stream, as the log holds them. */
function* runs(events: readonly RecordedEvent[]): Generator<RecordedEvent[]> {
  let run: RecordedEvent[] = []
  for (const event of events) {
    const last = run[run.length - 1]
    if (last && (last.stream !== event.stream || run.length >= MAX_RUN)) {
      yield run
      run = []
    }
    run.push(event)
  }
  if (run.length > 0) yield run
}

/**
 * Every source event is in the target, identical but for its position, and every hash recomputes
 * and links to the previous event of its stream. Reads the target stream by stream, a page at a time.
 */
async function verify(source: EventStore, target: EventStore): Promise<{ events: number; streams: number }> {
  const lastHash = new Map<string, string>()
  let events = 0
  let position = 0
  for (;;) {
    const page = await source.readAll({ fromPosition: position + 1, limit: PAGE })
    if (page.length === 0) return { events, streams: lastHash.size }
    const byStream = new Map<string, RecordedEvent[]>()
    for (const event of page) {
      let list = byStream.get(event.stream)
      if (!list) byStream.set(event.stream, (list = []))
      list.push(event)
    }
    const checked = await mapConcurrently([...byStream.entries()], VERIFY_CONCURRENCY, async ([stream, wanted]) => {
      const first = wanted[0] as RecordedEvent
      const copies = await target.readStream(stream, { from: first.revision, limit: (wanted[wanted.length - 1] as RecordedEvent).revision - first.revision + 1 })
      return { stream, wanted, copies }
    })
    for (const { stream, wanted, copies } of checked) {
      wanted.forEach((event, i) => {
        const copy = copies[i]
        const problem = !copy
          ? 'is missing from the target'
          : !sameEvent(event, copy)
            ? 'differs in the target'
            : hashEvent(copy, copy.prevHash) !== copy.hash
              ? 'does not match its hash'
              : copy.prevHash !== (lastHash.get(stream) ?? (copy.revision === 0 ? null : copy.prevHash))
                ? 'does not link to the previous event of its stream'
                : null
        if (problem) throw new MigrationError(`verification failed: ${stream} revision ${event.revision} (event ${event.id}) ${problem}`)
        lastHash.set(stream, (copy as RecordedEvent).hash)
      })
    }
    events += page.length
    position = (page[page.length - 1] as RecordedEvent).position
  }
}

/** `map` with at most `limit` calls in flight; results in input order. */
async function mapConcurrently<T, R>(items: readonly T[], limit: number, map: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++
      results[index] = await map(items[index] as T)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}

function sameEvent(a: RecordedEvent, b: RecordedEvent): boolean {
  const strip = ({ position: _position, ...rest }: RecordedEvent) => rest
  return JSON.stringify(canonical(strip(a))) === JSON.stringify(canonical(strip(b)))
}

/** Objects with their keys sorted, so key order does not count as a difference. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical((value as Record<string, unknown>)[key])]))
}

/** Where the last run stopped, for this target; beside the embedded log. */
class ResumePoint {
  private readonly key: string

  constructor(
    private readonly file: string,
    target: string,
  ) {
    this.key = sha256Hex(target)
  }

  position(): number {
    try {
      const saved = JSON.parse(readFileSync(this.file, 'utf8')) as { targetKey?: string; position?: number }
      return saved.targetKey === this.key && typeof saved.position === 'number' ? saved.position : 0
    } catch {
      return 0
    }
  }

  save(position: number, counts: CopyCounts): void {
    const next = `${this.file}.tmp`
    writeFileSync(next, `${JSON.stringify({ targetKey: this.key, position, ...counts, savedAt: new Date().toISOString() })}\n`)
    renameSync(next, this.file)
  }
}

/**
 * Progress of the copy: the shared bar on a terminal, otherwise a line every 10% (docker logs, CI).
 * The fraction is by position, which for the embedded log (positions 1, 2, 3, …) is by event.
 */
class CopyProgress {
  private readonly bar: ProgressBar | null
  private readonly started = performance.now()
  private lastStep = -1

  constructor(
    private readonly io: Io,
    private readonly end: number,
    private readonly quiet: boolean,
    private readonly first: number,
  ) {
    this.bar = !quiet && io === processIo && process.stderr.isTTY === true ? new ProgressBar('migrate', (text) => process.stderr.write(text)) : null
  }

  update(position: number): void {
    if (this.quiet) return
    const progress = { done: position - this.first, position, end: this.end, elapsedMs: performance.now() - this.started }
    if (this.bar) return this.bar.update(progress)
    const step = this.end === 0 ? 10 : Math.floor((10 * position) / this.end)
    if (step === this.lastStep) return
    this.lastStep = step
    this.io.err(formatProgress('migrate', progress))
  }

  done(): void {
    this.update(this.end)
    this.bar?.finish()
  }
}
