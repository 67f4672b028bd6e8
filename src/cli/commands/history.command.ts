/**
 * `leadline history`: one lead's events in order (time, summary, who caused it), then its state as of
 * an instant, rebuilt from the events alone. Reads the log only; recordings and transcripts are not shown.
 */
import { csvCell } from '../../domain/shared/csv.ts'
import { DateTime } from 'luxon'
import { phoneIdentity } from '../../domain/lead/intake/phone.ts'
import { withoutRecordings } from '../../domain/recordings-policy.ts'
import { withoutSealedSecrets } from '../../domain/sealed-secrets.ts'
import { openLogForReading } from '../../audit/audited-log.ts'
import { printable } from '../../domain/shared/printable.ts'
import type { ChainFinding } from '../../audit/hash-chain-verifier.ts'
import { describeLeadState, loadAccount, readLeadHistory, type HistoryEntry, type LeadHistory } from '../../audit/lead-history.ts'
import { config, json, parse, required, table, UsageError, type Io } from '../cli-io.ts'

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/

/**
 * `--as-of`: an ISO 8601 time; without an offset it is read in the account's time zone, and a date
 * alone means the end of that day there.
 */
export function parseAsOf(value: string, timeZone: string): Date {
  const text = value.trim()
  const parsed = DATE_ONLY.test(text) ? DateTime.fromISO(text, { zone: timeZone }).endOf('day') : DateTime.fromISO(text, { zone: timeZone })
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || !parsed.isValid) {
    throw new UsageError(`--as-of takes an ISO 8601 time such as 2026-03-10T15:00:00Z or 2026-03-10 (got ${JSON.stringify(printable(value))})`)
  }
  return parsed.toJSDate()
}

export { csvCell }

const CSV_COLUMNS = ['position', 'revision', 'recorded_at', 'type', 'summary', 'actor_kind', 'actor_id', 'event_id'] as const

function csvRow(entry: HistoryEntry): string {
  return [entry.position, entry.revision, entry.recordedAt, printable(entry.type, 200), entry.summary, printable(entry.actor.kind, 200), printable(entry.actor.id, 200), entry.id]
    .map(csvCell)
    .join(',')
}

function readable(history: LeadHistory, accountId: string, total: number, chain: ChainFinding | null): string {
  const { entries, state, asOf, later } = history
  const lead = state.exists ? `lead ${state.leadId} (${printable(state.fields?.phone ?? '')})` : `lead stream ${history.stream}`
  const scope = asOf === null ? `${entries.length} events` : `${entries.length} of ${total} events, up to ${asOf}`
  const lines = [`${lead}, account ${accountId}: ${scope}`]
  if (entries.length === 0) lines.push(`no events recorded by ${asOf ?? 'now'}`)
  else {
    lines.push(
      table(
        ['rev', 'recorded', 'event', 'summary', 'by'],
        entries.map((e) => [String(e.revision), e.recordedAt, printable(e.type, 40), e.summary, e.actorText]),
      ),
    )
  }
  if (later > 0) lines.push(`(${later} later ${later === 1 ? 'event' : 'events'} not shown)`)
  lines.push(
    chain === null
      ? `hash chain of this lead: intact (${total} ${total === 1 ? 'event' : 'events'})`
      : `hash chain of this lead: BROKEN: ${chain.problem} at revision ${chain.revision}: ${chain.message} (see leadline audit verify)`,
  )
  lines.push('', `state as of ${asOf ?? 'now'}, rebuilt from ${entries.length === 1 ? 'this event' : `these ${entries.length} events`}:`)
  const rows = describeLeadState(state)
  const width = Math.max(...rows.map(([label]) => label.length))
  for (const [label, value] of rows) lines.push(`  ${label.padEnd(width)}  ${value}`)
  return lines.join('\n')
}

export async function historyCommand(args: string[], io: Io): Promise<void> {
  const { values } = parse(args, {
    account: { type: 'string' },
    phone: { type: 'string' },
    'as-of': { type: 'string' },
    json: { type: 'boolean' },
    format: { type: 'string' },
  })
  const accountId = required(values.account, '--account')
  const phone = required(values.phone, '--phone')
  if (values.format !== undefined && values.format !== 'csv') throw new UsageError('--format takes csv (or use --json)')
  if (values.format !== undefined && values.json) throw new UsageError('use either --json or --format csv')
  const last10 = phoneIdentity(phone)
  if (last10 === undefined) throw new UsageError(`--phone must contain at least 10 digits (got ${JSON.stringify(printable(phone))})`)

  const store = await openLogForReading(config(io).store)
  try {
    const account = await loadAccount(store, accountId)
    if (!account) throw new UsageError(`no account ${printable(accountId)}`)
    const asOf = values['as-of'] === undefined ? null : parseAsOf(values['as-of'], account.settings.timeZone)
    const found = await readLeadHistory(store, accountId, last10, asOf)
    if (!found) throw new UsageError(`no lead with phone ${printable(phone)} in account ${accountId}`)
    const { history, total, chain } = found

    if (values.json) {
      return io.out(
        json({
          accountId,
          stream: history.stream,
          asOf: history.asOf,
          events: history.entries.map(({ actorText, ...entry }) => ({ ...entry, by: actorText })),
          laterEvents: history.later,
          chain: { intact: chain === null, firstBadEvent: chain },
          state: withoutSealedSecrets(withoutRecordings(history.state)),
        }),
      )
    }
    if (values.format === 'csv') return io.out([CSV_COLUMNS.join(','), ...history.entries.map(csvRow)].join('\n'))
    io.out(readable(history, accountId, total, chain))
  } finally {
    await store.close()
  }
}
