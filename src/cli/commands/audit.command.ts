/**
 * `leadline audit verify`: walks every stream's hash chain and names the first event of each that was
 * changed, removed, inserted or reordered (exit 1 when any is found).
 * `leadline audit export`: an account's events with their hashes, as JSON Lines.
 * Both only read the log.
 */
import fs from 'node:fs'
import { openLogForReading } from '../../audit/audited-log.ts'
import { printable } from '../../domain/shared/printable.ts'
import { exportAccount } from '../../audit/export.ts'
import { verifyLog, type VerifyReport } from '../../audit/hash-chain-verifier.ts'
import { config, json, parse, processIo, required, UsageError, type Io } from '../cli-io.ts'
import { formatCount, ProgressBar } from '../progress-bar.ts'

/** The check ran and found tampering: exit 1, after the report. */
export class AuditFailedError extends Error {
  readonly type = 'audit_failed' as const
  constructor(message: string) {
    super(message)
    this.name = 'AuditFailedError'
  }
}

/** A progress bar on stderr when it is a terminal; nothing otherwise (pipes, tests). */
export function progressBar(io: Io, label: string): ProgressBar | null {
  return io === processIo && process.stderr.isTTY === true ? new ProgressBar(label, (text) => process.stderr.write(text)) : null
}

export async function auditCommand(args: string[], io: Io): Promise<void> {
  const [sub, ...rest] = args
  if (sub === 'verify') return verify(rest, io)
  if (sub === 'export') return exportEvents(rest, io)
  throw new UsageError(`unknown command "audit ${printable(sub ?? '')}": use verify or export`)
}

function readableReport(report: VerifyReport, accountId: string | undefined): string {
  const scope = accountId === undefined ? '' : ` of account ${accountId}`
  const checked = `${formatCount(report.events)} events in ${formatCount(report.streams)} streams${scope}`
  if (report.findings.length === 0) return `hash chains intact: ${checked}, up to position ${formatCount(report.head)}`
  return [
    `TAMPERED: ${report.findings.length} of ${formatCount(report.streams)} streams fail verification (${checked})`,
    ...report.findings.map((f) => `${f.stream} revision ${f.revision} (position ${f.position}, id ${f.id}): ${f.problem}: ${f.message}`),
  ].join('\n')
}

async function verify(args: string[], io: Io): Promise<void> {
  const { values } = parse(args, { account: { type: 'string' }, json: { type: 'boolean' } })
  if (values.account !== undefined) required(values.account, '--account')
  const store = await openLogForReading(config(io).store)
  let report: VerifyReport
  try {
    const head = await store.headPosition()
    const bar = progressBar(io, 'verify')
    const started = performance.now()
    report = await verifyLog(store, {
      ...(values.account !== undefined ? { accountId: values.account } : {}),
      ...(bar ? { onProgress: (checked: number, position: number) => bar.update({ done: checked, position, end: head, elapsedMs: performance.now() - started }) } : {}),
    })
    bar?.finish()
  } finally {
    await store.close()
  }
  if (values.account !== undefined && report.events === 0) throw new UsageError(`no events for account ${printable(values.account)}`)
  io.out(values.json ? json({ ok: report.findings.length === 0, ...report }) : readableReport(report, values.account))
  if (report.findings.length > 0) {
    throw new AuditFailedError(`audit verify: ${report.findings.length} ${report.findings.length === 1 ? 'stream fails' : 'streams fail'} verification`)
  }
}

async function exportEvents(args: string[], io: Io): Promise<void> {
  const { values } = parse(args, { account: { type: 'string' }, output: { type: 'string' }, 'include-recordings': { type: 'boolean' } })
  const accountId = required(values.account, '--account')
  const output = values.output === undefined ? undefined : required(values.output, '--output')
  let fd: number | undefined
  if (output !== undefined) {
    try {
      fd = fs.openSync(output, 'wx')
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      throw new UsageError(code === 'EEXIST' ? `${output} exists already; export writes a new file` : `cannot write ${output}: ${(error as Error).message}`)
    }
  }
  const store = await openLogForReading(config(io).store)
  try {
    const summary = await exportAccount(store, accountId, (chunk) => (fd === undefined ? io.out(chunk) : void fs.writeSync(fd, chunk)), {
      includeRecordings: values['include-recordings'] === true,
    })
    if (summary.events === 0) {
      if (output !== undefined) fs.rmSync(output, { force: true })
      throw new UsageError(`no events for account ${printable(accountId)}`)
    }
    const removed = [
      summary.redacted > 0 ? `${summary.redacted} with recordings or transcripts removed` : '',
      summary.secretsRemoved > 0 ? `${summary.secretsRemoved} with secrets removed (hashes, sealed secrets)` : '',
    ].filter((part) => part !== '')
    const redacted = removed.length > 0 ? `; ${removed.join('; ')} ("redacted": true)` : ''
    const line = `exported ${formatCount(summary.events)} events in ${formatCount(summary.streams)} streams of account ${accountId}${output !== undefined ? ` to ${output}` : ''}${redacted}`
    // On stdout the JSON Lines must stay clean: the summary goes to stderr then.
    if (output !== undefined) io.out(line)
    else io.err(line)
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
    await store.close()
  }
}
