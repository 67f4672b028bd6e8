/**
 * What the account changes on a lead by hand (update_lead, add_note), as opposed to what a sender
 * submits: an edit sets or clears the fields it names, a note is kept on the lead's own stream. The
 * phone is the lead's identity (its stream is named for it): no edit changes it.
 */
import type { Actor } from '../../event.ts'
import { DomainError } from '../../shared/decider.ts'
import { printable, quoted } from '../../shared/printable.ts'
import { mergeExtraFields, type ExtraField } from './extra-fields.ts'
import { joinName, splitFullName } from './full-name.ts'
import type { LeadFields } from './normalize-lead-input.ts'
import { usStateCode } from './us-states.ts'

/** A note's text is at most this many characters: a note, not a document. */
export const MAX_NOTE_LENGTH = 2_000
/** The latest notes the lead's state keeps (get_lead shows them); the history has every one. */
export const NOTES_KEPT = 5

/** The fields an edit may set; null clears one. */
export interface LeadEditChanges {
  readonly fullName?: string | null
  readonly firstName?: string | null
  readonly lastName?: string | null
  readonly email?: string | null
  readonly state?: string | null
}

/** The account's edit: only what it changed; a custom field's null removes it. */
export interface LeadEditedData {
  readonly leadId: string
  readonly changes: LeadEditChanges
  readonly customFields: ReadonlyArray<{ readonly name: string; readonly value: string | null }>
  readonly editedAt: string
}

export interface Note {
  readonly noteId: string
  readonly text: string
  readonly author: Actor
  readonly at: string
}

export type EditLead = {
  type: 'EditLead'
  /** The full name; first and last follow it unless given too. */
  name?: string
  firstName?: string
  lastName?: string
  email?: string | null
  state?: string | null
  customFields?: Readonly<Record<string, string | null>>
}

export type AddNote = { type: 'AddNote'; noteId: string; text: string; author: Actor }

/** Custom field names that would be read as the phone: the phone is the identity, never edited. */
const PHONE_NAMES = /^(?:phone|phone[_ -]?number|mobile|cell|telephone|tel)$/i

/** The name forms an edit sets: a full name splits into first and last unless they are given too. */
function nameChanges(command: EditLead, current: LeadFields): Record<string, string | null> {
  if (command.name !== undefined) {
    const split = splitFullName(command.name)
    return { fullName: command.name, firstName: command.firstName ?? split.first, lastName: command.lastName ?? split.last ?? null }
  }
  if (command.firstName === undefined && command.lastName === undefined) return {}
  const first = command.firstName ?? current.firstName
  const last = command.lastName ?? current.lastName
  return { ...(command.firstName !== undefined ? { firstName: command.firstName } : {}), ...(command.lastName !== undefined ? { lastName: command.lastName } : {}), fullName: joinName(first, last) ?? null }
}

/** The edit's event, with only what differs from the lead now; null when nothing would change. */
export function decideEdit(command: EditLead, leadId: string, current: LeadFields, at: string): LeadEditedData | null {
  const wanted: Record<string, string | null> = { ...nameChanges(command, current) }
  if (command.email !== undefined) wanted.email = command.email
  if (command.state !== undefined) wanted.state = command.state === null ? null : (usStateCode(command.state) ?? command.state.trim())
  const changes = Object.fromEntries(Object.entries(wanted).filter(([key, value]) => (current[key as keyof LeadFields] ?? null) !== value))
  const customFields: Array<{ name: string; value: string | null }> = []
  for (const [name, value] of Object.entries(command.customFields ?? {})) {
    if (PHONE_NAMES.test(name.trim())) throw new DomainError('phone_not_updatable', "the phone is the lead's identity and cannot be changed; receive the new number as a new lead")
    const stored = current.extraFields.find((field) => field.name === name)
    if (value === null ? stored === undefined : stored !== undefined && stored.value === value) continue
    customFields.push({ name, value })
  }
  if (Object.keys(changes).length === 0 && customFields.length === 0) return null
  return { leadId, changes, customFields, editedAt: at }
}

/** The lead's fields after an edit. */
export function applyEdit(fields: LeadFields, data: LeadEditedData): LeadFields {
  const next: Record<string, unknown> = { ...fields }
  for (const [key, value] of Object.entries(data.changes)) {
    if (value === null) delete next[key]
    else next[key] = value
  }
  return { ...(next as unknown as LeadFields), extraFields: editedExtraFields(fields.extraFields, data.customFields) }
}

/** The extra fields after an edit's custom fields: null removes one, a value sets it (last, as a submission's would). */
export function editedExtraFields(current: readonly ExtraField[], customFields: LeadEditedData['customFields']): ExtraField[] {
  const removed = new Set(customFields.filter((field) => field.value === null).map((field) => field.name))
  const set = customFields.filter((field) => field.value !== null)
  return mergeExtraFields(current.filter((field) => !removed.has(field.name)), set)
}

/** A note as recorded: trimmed, not empty, at most MAX_NOTE_LENGTH characters. */
export function decideNote(command: AddNote, at: string): Note {
  const text = command.text.trim()
  if (text === '') throw new DomainError('note_empty', 'a note needs some text')
  if (text.length > MAX_NOTE_LENGTH) throw new DomainError('note_too_long', `a note is at most ${MAX_NOTE_LENGTH} characters (this one has ${text.length})`)
  return { noteId: command.noteId, text, author: command.author, at }
}

/** The edit in a line: `edited: email → "a@b.c", state cleared, custom field "plan" set`. */
export function editSummary(data: LeadEditedData): string {
  const parts = Object.entries(data.changes).map(([key, value]) => (value === null ? `${key} cleared` : `${key} → ${quoted(value)}`))
  for (const field of data.customFields) parts.push(`custom field ${quoted(field.name)} ${field.value === null ? 'removed' : `→ ${quoted(field.value)}`}`)
  return `edited by the account: ${parts.join(', ')}`
}

export function noteSummary(data: Note & { readonly leadId: string }): string {
  return `note by ${printable(data.author.kind)} ${printable(data.author.id)}: "${printable(data.text, 200)}"`
}
