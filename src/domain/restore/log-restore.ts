/**
 * The log's own record of being restored from a backup (`leadline restore`): one `LogRestored` on the
 * `log-restores` stream per restore, appended into the restored copy before it is put in place, so a
 * log is never in place restored without it. Every effect process reads it at a start, on any node:
 * a decision at or before the backup's head that the log does not know was carried out may have been
 * carried out after the backup was taken, so it is expired (`restored_from_backup`), never performed.
 */
import type { Decider, DomainEvent } from '../shared/decider.ts'
import { printable, type EventSummaries } from '../shared/printable.ts'

export const LOG_RESTORES_STREAM = 'log-restores'

/** Why a decision is expired after a restore, on its slice's `…Expired` event. */
export const RESTORED_FROM_BACKUP = 'restored_from_backup'

/** `backupHead`: the backup's last log position; every decision at or before it came from the backup. */
export type LogRestored = DomainEvent<'LogRestored', { backupHead: number; backupEvents: number; restoredAt: string }>
export type LogRestoreEvent = LogRestored

export const LOG_RESTORE_SUMMARIES: EventSummaries<LogRestoreEvent> = {
  LogRestored: (d) => `log restored from a backup of ${d.backupEvents} events up to position ${d.backupHead} at ${printable(d.restoredAt)}: decisions up to it not known as carried out are expired`,
}

export type LogRestoreCommand = { type: 'RecordRestore'; backupHead: number; backupEvents: number }

/** The latest restore: decisions at or before `backupHead` predate it (null: never restored). */
export interface LogRestoreState {
  readonly backupHead: number | null
  readonly restoredAt: string | null
}

export const logRestoreDecider: Decider<LogRestoreCommand, LogRestoreEvent, LogRestoreState> = {
  initialState: () => ({ backupHead: null, restoredAt: null }),
  evolve: (state, event) => ({ backupHead: Math.max(state.backupHead ?? -1, event.data.backupHead), restoredAt: event.data.restoredAt }),
  decide: (command, _state, now) => [{ type: 'LogRestored', data: { backupHead: command.backupHead, backupEvents: command.backupEvents, restoredAt: now.toISOString() } }],
}
