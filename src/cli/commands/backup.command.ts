/**
 * `leadline backup PATH`: a consistent copy of the embedded log, taken while a server runs on it, its
 * hash chains verified. `leadline restore PATH`: puts a backup in place as the log named by
 * LEADLINE_STORE, after checking it is a Leadline log whose chains verify, and rebuilds the read
 * models from it. The read models are not backed up: they are disposable, and rebuilt from the
 * restored log they match it exactly (docs/deployment.md#back-up-and-restore).
 */
import fs from 'node:fs'
import path from 'node:path'
import { LogUnavailableError, openLogForReading } from '../../audit/audited-log.ts'
import { verifyLog, type VerifyReport } from '../../audit/hash-chain-verifier.ts'
import { copyDatabase, databaseInUse, isSqliteError, moveDatabaseAside, placeDatabase, removeDatabase } from '../../eventstore/sqlite/index.ts'
import { StoreUnavailableError } from '../../eventstore/event-store.port.ts'
import { openEventStore } from '../../eventstore/open-event-store.ts'
import { CommandHandler } from '../../eventstore/command-handler.ts'
import { LOG_RESTORES_STREAM, logRestoreDecider } from '../../domain/restore/log-restore.ts'
import { config, json, operator, parse, required, shown, UsageError, withLeadline, type Io } from '../cli-io.ts'
import { formatCount } from '../progress-bar.ts'
import { AuditFailedError } from './audit.command.ts'

/** The file of an embedded log; backup and restore have nothing to do for EventStoreDB. */
function embeddedLogFile(store: string): string {
  if (!store.startsWith('sqlite:')) {
    throw new UsageError('backup and restore work on the embedded log (LEADLINE_STORE=sqlite:PATH); back up EventStoreDB with its own tools (docs/deployment.md#back-up-and-restore)')
  }
  return store.slice('sqlite:'.length)
}

/** What SQLite said about a file that is not a database of ours (no events table, damaged), if that is the error. */
function sqliteComplaint(error: unknown): string | null {
  const cause = error instanceof StoreUnavailableError ? error.cause : error
  return isSqliteError(cause) ? cause.message : null
}

/** Verifies the log in `file`; a file that is not a Leadline log is refused with `notALog`. */
async function verifyFile(file: string, notALog: (why: string) => Error): Promise<VerifyReport> {
  let store
  try {
    store = await openLogForReading(`sqlite:${file}`)
  } catch (error) {
    if (error instanceof LogUnavailableError) throw notALog(error.message)
    const complaint = sqliteComplaint(error)
    if (complaint !== null) throw notALog(complaint)
    throw error
  }
  try {
    return await verifyLog(store)
  } catch (error) {
    const complaint = sqliteComplaint(error)
    if (complaint !== null) throw notALog(complaint)
    throw error
  } finally {
    await store.close()
  }
}

/**
 * Records on the staged copy, before it is put in place, that it was restored from a backup up to
 * `report.head`: a log in place is never restored without the record, whatever crashes, and every
 * node's effect processes read it at their start (docs/deployment.md#back-up-and-restore).
 */
async function recordRestore(file: string, report: VerifyReport): Promise<void> {
  const store = await openEventStore(`sqlite:${file}`)
  try {
    await new CommandHandler(store).handle(LOG_RESTORES_STREAM, logRestoreDecider, { type: 'RecordRestore', backupHead: report.head, backupEvents: report.events }, operator())
  } finally {
    await store.close()
  }
}

const counted = (report: VerifyReport) => `${formatCount(report.events)} events in ${formatCount(report.streams)} streams, up to position ${formatCount(report.head)}`

export async function backupCommand(args: string[], io: Io): Promise<void> {
  const { values, positionals } = parse(args, { json: { type: 'boolean' } }, true)
  const target = path.resolve(required(positionals[0], 'PATH'))
  if (positionals.length > 1) throw new UsageError('backup takes one PATH')
  const source = embeddedLogFile(config(io).store)
  if (!fs.existsSync(source)) throw new LogUnavailableError(`no event log at ${source} (LEADLINE_STORE)`)
  if (fs.existsSync(target)) throw new UsageError(`${shown(target)} exists already; backup writes a new file`)
  if (!fs.existsSync(path.dirname(target))) throw new UsageError(`no directory ${shown(path.dirname(target))}`)

  const started = performance.now()
  // Written under a temporary name and renamed once verified: a file at PATH is always a whole backup.
  const partial = `${target}.partial-${process.pid}`
  removeDatabase(partial)
  try {
    await copyDatabase(source, partial)
    const report = await verifyFile(partial, (why) => new UsageError(`${source} is not a Leadline event log: ${why}`))
    if (report.findings.length > 0) {
      throw new AuditFailedError(`backup: the log's hash chains fail verification in ${report.findings.length} streams (leadline audit verify names them); no backup written`)
    }
    placeDatabase(partial, target)
    const seconds = (performance.now() - started) / 1000
    if (values.json) return io.out(json({ backup: target, events: report.events, streams: report.streams, head: report.head, verified: true, seconds: Number(seconds.toFixed(1)) }))
    io.out(`backed up ${counted(report)} to ${shown(target)} in ${seconds.toFixed(1)} s; hash chains verified`)
  } finally {
    removeDatabase(partial)
  }
}

export async function restoreCommand(args: string[], io: Io): Promise<void> {
  const { values, positionals } = parse(args, { force: { type: 'boolean' }, json: { type: 'boolean' } }, true)
  const backup = path.resolve(required(positionals[0], 'BACKUP'))
  if (positionals.length > 1) throw new UsageError('restore takes one BACKUP file')
  const cfg = config(io)
  const target = path.resolve(embeddedLogFile(cfg.store))
  const views = path.resolve(cfg.viewsPath)
  if (!fs.existsSync(backup)) throw new UsageError(`no backup at ${shown(backup)}`)
  if (backup === target) throw new UsageError('the backup is the log LEADLINE_STORE names: restore a copy into another path')
  for (const file of [target, views]) {
    if (databaseInUse(file)) throw new UsageError(`${file} is open in another process (a running server?): stop it, then restore`)
  }
  if (fs.existsSync(target) && !values.force) {
    throw new UsageError(`${target} holds a log already: restore into a new LEADLINE_STORE path, or pass --force to move it aside`)
  }

  // Copied beside the target first (the backup file stays as it is), checked there, then put in place.
  const staged = `${target}.restoring-${process.pid}`
  removeDatabase(staged)
  fs.mkdirSync(path.dirname(target), { recursive: true })
  let report: VerifyReport
  let replaced: string | null = null
  try {
    try {
      await copyDatabase(backup, staged)
    } catch (error) {
      if (isSqliteError(error)) throw new UsageError(`${shown(backup)} is not a Leadline event log: ${error.message}`)
      throw error
    }
    report = await verifyFile(staged, (why) => new UsageError(`${shown(backup)} is not a Leadline event log: ${why}`))
    if (report.findings.length > 0) {
      const first = report.findings[0]
      throw new AuditFailedError(
        `restore: ${shown(backup)} fails verification in ${report.findings.length} streams (first: ${first?.stream} revision ${first?.revision}: ${first?.problem}); nothing restored`,
      )
    }
    await recordRestore(staged, report)
    if (fs.existsSync(target)) replaced = moveDatabaseAside(target, `.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`)
    else removeDatabase(target) // side files a crashed process may have left without their database
    // The read models (and the process managers' checkpoints) are of the log that was there: rebuilt below.
    removeDatabase(views)
    placeDatabase(staged, target)
  } finally {
    removeDatabase(staged)
  }

  // A fresh views database catches up from position 0, as a new node does.
  const leads = await withLeadline(io, async (leadline) => {
    if (!(await leadline.runner.caughtUp())) throw new Error('the read models did not catch up with the restored log')
    return leadline.accountsQueries.list().reduce((n, account) => n + leadline.inboundLeads.count(account.accountId), 0)
  })
  if (values.json) {
    return io.out(json({ restored: target, from: backup, events: report.events, streams: report.streams, head: report.head, verified: true, leads, replaced }))
  }
  io.out(
    [
      `restored ${counted(report)} from ${shown(backup)} to ${target}; hash chains verified`,
      `read models rebuilt from the restored log: ${formatCount(leads)} leads in Inbound Leads`,
      ...(replaced ? [`the log that was there is kept as ${replaced}`] : []),
    ].join('\n'),
  )
}
