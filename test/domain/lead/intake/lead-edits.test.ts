/**
 * The account's edits and notes on the lead aggregate (issue #30): an edit records only what differs,
 * sets and clears, splits a full name, re-forms it from a first name, and never touches the phone;
 * a note is trimmed, bounded, kept with its author, and the state keeps the newest five.
 */
import t from 'tap'
import { leadDecider, type LeadCommand, type LeadState } from '../../../../src/domain/lead/lead.decider.ts'
import type { LeadEvent } from '../../../../src/domain/lead/lead.events.ts'
import { LEAD_SUMMARIES } from '../../../../src/domain/lead/lead.events.ts'
import { MAX_NOTE_LENGTH, NOTES_KEPT } from '../../../../src/domain/lead/intake/lead-edits.ts'
import { DomainError } from '../../../../src/domain/shared/decider.ts'

const NOW = new Date('2026-03-10T15:00:00Z')
const AGENT = { kind: 'api_key', id: 'key_1' } as const
const RECEIVE: LeadCommand = {
  type: 'ReceiveLead', accountId: 'acc_1', newLeadId: 'ld_1',
  fields: { phone: '+13125550142', phoneLast10: '3125550142', phoneRaw: '312-555-0142', fullName: 'Jane Doe', firstName: 'Jane', lastName: 'Doe', email: 'jane@example.com', state: 'IL', industryFields: {}, extraFields: [{ name: 'roof', value: 'metal' }] },
}
const stateOf = (events: readonly LeadEvent[]): LeadState => events.reduce((s, e) => leadDecider.evolve(s, e), leadDecider.initialState())
function play(commands: readonly LeadCommand[]): LeadEvent[] {
  const events: LeadEvent[] = []
  for (const command of commands) events.push(...leadDecider.decide(command, stateOf(events), NOW))
  return events
}
function code(fn: () => unknown): string | null {
  try {
    fn()
    return null
  } catch (error) {
    return error instanceof DomainError ? error.code : String(error)
  }
}

t.test('an edit records only what differs; null clears; custom fields set and removed; the phone stays', async (t) => {
  const events = play([RECEIVE, { type: 'EditLead', name: 'Janet Smith', email: null, state: 'texas', customFields: { roof: 'tile', budget: '12000', missing: null } }])
  const edit = events.at(-1)
  t.same(edit?.type === 'LeadEdited' ? edit.data.changes : null, { fullName: 'Janet Smith', firstName: 'Janet', lastName: 'Smith', email: null, state: 'TX' })
  t.same(edit?.type === 'LeadEdited' ? edit.data.customFields : null, [{ name: 'roof', value: 'tile' }, { name: 'budget', value: '12000' }], 'removing a field that is not there is no change')
  const fields = stateOf(events).fields
  t.match(fields, { phone: '+13125550142', fullName: 'Janet Smith', state: 'TX', extraFields: [{ name: 'roof', value: 'tile' }, { name: 'budget', value: '12000' }] })
  t.notOk(fields && 'email' in fields, 'the email is cleared')
  t.equal(LEAD_SUMMARIES.LeadEdited(edit?.data as never), 'edited by the account: fullName → "Janet Smith", firstName → "Janet", lastName → "Smith", email cleared, state → "TX", custom field "roof" → "tile", custom field "budget" → "12000"')

  t.same(leadDecider.decide({ type: 'EditLead', state: 'TX', customFields: { roof: 'tile' } }, stateOf(events), NOW), [], 'the same again changes nothing')
  const first = leadDecider.decide({ type: 'EditLead', firstName: 'Jan', customFields: { budget: null } }, stateOf(events), NOW)
  t.match(first, [{ type: 'LeadEdited', data: { changes: { firstName: 'Jan', fullName: 'Jan Smith' }, customFields: [{ name: 'budget', value: null }] } }])
  t.equal(code(() => leadDecider.decide({ type: 'EditLead', customFields: { 'Phone Number': '+13125550199' } }, stateOf(events), NOW)), 'phone_not_updatable')
  t.equal(code(() => leadDecider.decide({ type: 'EditLead', email: 'x@example.com' }, leadDecider.initialState(), NOW)), 'lead_not_found')
})

t.test('a note is trimmed, bounded and kept with its author; the state keeps the newest five and counts them all', async (t) => {
  const notes = Array.from({ length: NOTES_KEPT + 2 }, (_, i): LeadCommand => ({ type: 'AddNote', noteId: `note_${i}`, text: `  note ${i}  `, author: AGENT }))
  const events = play([RECEIVE, ...notes])
  const state = stateOf(events)
  t.equal(state.notesTotal, NOTES_KEPT + 2)
  t.same(state.notes.map((n) => n.text), ['note 2', 'note 3', 'note 4', 'note 5', 'note 6'])
  t.same(state.notes[0]?.author, AGENT)
  t.equal(LEAD_SUMMARIES.NoteAdded(events.at(-1)?.data as never), 'note by api_key key_1: "note 6"')
  t.equal(code(() => leadDecider.decide({ type: 'AddNote', noteId: 'n', text: ' \n ', author: AGENT }, state, NOW)), 'note_empty')
  t.equal(code(() => leadDecider.decide({ type: 'AddNote', noteId: 'n', text: 'x'.repeat(MAX_NOTE_LENGTH + 1), author: AGENT }, state, NOW)), 'note_too_long')
  t.equal(code(() => leadDecider.decide({ type: 'AddNote', noteId: 'n', text: 'hi', author: AGENT }, leadDecider.initialState(), NOW)), 'lead_not_found')
})
