import t from 'tap'
import { leadDecider, type LeadCommand, type LeadState } from '../../../src/domain/lead/lead.decider.ts'
import type { LeadEvent } from '../../../src/domain/lead/lead.events.ts'
import { leadStream, parseLeadStream } from '../../../src/domain/lead/lead.events.ts'
import { normalizeLeadInput, type LeadFields } from '../../../src/domain/lead/intake/normalize-lead-input.ts'
import { deciderSpec } from '../../helpers/decider-spec.ts'

const NOW = new Date('2026-03-10T15:00:00Z')
const spec = deciderSpec<LeadCommand, LeadEvent, LeadState>(leadDecider, NOW)

function receive(input: Record<string, unknown>, newLeadId = 'ld_1'): LeadCommand {
  const result = normalizeLeadInput(input, { defaultCountry: 'US', timeZone: 'America/New_York', industry: 'solar', now: NOW })
  if (!result.ok) throw new Error(result.error.message)
  return { type: 'ReceiveLead', accountId: 'acc_1', newLeadId, fields: result.lead, derived: result.derived }
}

function receivedEvents(input: Record<string, unknown>): LeadEvent[] {
  return leadDecider.decide(receive(input), leadDecider.initialState(), NOW)
}

t.test('a first submission receives the lead and groups it into Inbound Leads', async (t) => {
  spec([]).when(receive({ name: 'Jane Doe', phone: '(555) 123-4567' })).then(t, (events, after) => {
    t.same(events.map((e) => e.type), ['LeadReceived'], 'one event: the list is on the lead')
    t.match(events[0], { data: { leadId: 'ld_1', accountId: 'acc_1', receivedAt: NOW.toISOString(), fields: { phone: '+15551234567', phoneLast10: '5551234567', fullName: 'Jane Doe', firstName: 'Jane', lastName: 'Doe' } } })
    t.same((events[0] as Extract<LeadEvent, { type: 'LeadReceived' }>).data.list, { listId: 'inbound-leads', listName: 'Inbound Leads' })
    t.notOk('speedToLeadSkipped' in (events[0] as LeadEvent).data, 'nothing was asked of speed to lead')
    t.same(after.lists, ['Inbound Leads'])
    t.equal(after.dialing.speedToLead, 'pending')
    t.equal(after.submissions, 1)
  })
})

t.test('a later submission records only what changed, under the original lead id', async (t) => {
  const given = receivedEvents({ name: 'Jane Doe', phone: '5551234567', email: 'jane@x.co', source: 'Web' })
  spec(given).when(receive({ phone: '555.123.4567', email: 'jane@x.co', vendor: 'LeadCo', 'Monthly Electric Bill': '180', utm: 'x1' }, 'ld_other')).then(t, (events, after) => {
    t.same(events, [{
      type: 'LeadUpdated',
      data: { leadId: 'ld_1', changes: { vendor: 'LeadCo' }, industryFields: { monthly_electric_bill: '180' }, extraFields: [{ name: 'utm', value: 'x1' }], updatedAt: NOW.toISOString() },
    }])
    t.equal(after.leadId, 'ld_1')
    t.equal(after.fields?.source, 'Web', 'absent fields keep their value')
    t.equal(after.fields?.industryFields.monthly_electric_bill, '180')
    t.equal(after.submissions, 2)
  })
})

t.test('a resubmission that changes nothing is still recorded (a touch), with empty changes', async (t) => {
  const given = receivedEvents({ phone: '5551234567', name: 'Jane Doe' })
  spec(given).when(receive({ phone: '5551234567', name: 'Jane Doe' })).then(t, (events) => {
    t.match(events, [{ type: 'LeadUpdated', data: { changes: {}, industryFields: {}, extraFields: [] } }])
  })
})

t.test('derived names fill gaps but never overwrite what a sender actually sent', async (t) => {
  const given = receivedEvents({ phone: '5551234567', 'full name': 'Jane Doe' })
  spec(given).when(receive({ phone: '5551234567', first_name: 'Jane' })).then(t, (events) => {
    t.same((events[0] as Extract<LeadEvent, { type: 'LeadUpdated' }>).data.changes, {}, '"Jane" derived from first_name does not replace "Jane Doe"')
  })
  const noName = receivedEvents({ phone: '5551234567' })
  spec(noName).when(receive({ phone: '5551234567', first_name: 'Jo', last_name: 'Park' })).then(t, (events) => {
    t.same((events[0] as Extract<LeadEvent, { type: 'LeadUpdated' }>).data.changes, { fullName: 'Jo Park', firstName: 'Jo', lastName: 'Park' }, 'a derived full name fills a gap')
  })
  const apart = receivedEvents({ phone: '5551234567', 'full name': 'Bob Smith', first_name: 'Robert' })
  spec(apart).when(receive({ phone: '5551234567', 'full name': 'Bobby Smith' })).then(t, (events, after) => {
    t.same((events[0] as Extract<LeadEvent, { type: 'LeadUpdated' }>).data.changes, { fullName: 'Bobby Smith' }, 'forms sent apart: only the sent one changes')
    t.equal(after.fields?.firstName, 'Robert')
  })
  spec(apart).when(receive({ phone: '5551234567', last_name: 'Jones' })).then(t, (events, after) => {
    t.same((events[0] as Extract<LeadEvent, { type: 'LeadUpdated' }>).data.changes, { lastName: 'Jones' })
    t.equal(after.fields?.fullName, 'Bob Smith', 'a full name sent apart is kept')
  })
})

t.test('a changed name keeps its forms agreeing when they agreed', async (t) => {
  const given = receivedEvents({ phone: '5551234567', 'full name': 'Jane Doe' })
  const changes = (events: LeadEvent[]) => (events[0] as Extract<LeadEvent, { type: 'LeadUpdated' }>).data.changes
  spec(given).when(receive({ phone: '5551234567', 'full name': 'Jane Smith' })).then(t, (events, after) => {
    t.same(changes(events), { fullName: 'Jane Smith', lastName: 'Smith' }, 'a sent full name carries its last name along')
    t.match(after.fields, { fullName: 'Jane Smith', firstName: 'Jane', lastName: 'Smith' })
  })
  spec(given).when(receive({ phone: '5551234567', last_name: 'Smith' })).then(t, (events, after) => {
    t.same(changes(events), { lastName: 'Smith', fullName: 'Jane Smith' }, 'a sent last name carries the full name along')
    t.match(after.fields, { fullName: 'Jane Smith', firstName: 'Jane', lastName: 'Smith' })
  })
  spec(given).when(receive({ phone: '5551234567', first_name: 'Janet', zip: '60601' })).then(t, (events, after) => {
    t.same(changes(events), { firstName: 'Janet', fullName: 'Janet Doe', zip: '60601' }, 'the stored last name joins the sent first name, not the first name alone')
    t.match(after.fields, { fullName: 'Janet Doe', firstName: 'Janet', lastName: 'Doe' })
  })
  spec(given).when(receive({ phone: '5551234567', first_name: 'Janet', last_name: 'Roe' })).then(t, (events) => {
    t.same(changes(events), { firstName: 'Janet', lastName: 'Roe', fullName: 'Janet Roe' })
  })
  spec(given).when(receive({ phone: '5551234567', 'full name': 'Mary Ann Smith' })).then(t, (events, after) => {
    t.same(changes(events), { fullName: 'Mary Ann Smith', firstName: 'Mary', lastName: 'Ann Smith' }, 'split as on a first submission')
    t.equal(after.fields?.fullName, 'Mary Ann Smith')
  })
  spec(given).when(receive({ phone: '5551234567', name: 'Cher' })).then(t, (events, after) => {
    t.same(changes(events), { fullName: 'Cher', firstName: 'Cher' }, 'a one-word full name changes the first name, and erases no last name')
    t.equal(after.fields?.lastName, 'Doe')
  })
})

t.test('names split past a title or a last-name-first form still agree, and follow each other', async (t) => {
  const changes = (events: LeadEvent[]) => (events[0] as Extract<LeadEvent, { type: 'LeadUpdated' }>).data.changes
  const titled = receivedEvents({ phone: '5552345678', 'full name': 'Mr John Smith' })
  t.match(titled[0], { data: { fields: { fullName: 'Mr John Smith', firstName: 'John', lastName: 'Smith' } } }, 'the title is not the first name')
  spec(titled).when(receive({ phone: '5552345678', last_name: 'Jones' })).then(t, (events, after) => {
    t.same(changes(events), { lastName: 'Jones', fullName: 'John Jones' }, 'split forms agree: the full name follows the sent last name')
    t.match(after.fields, { firstName: 'John', lastName: 'Jones' })
  })
  spec(titled).when(receive({ phone: '5552345678', 'full name': 'Mr John Doe' })).then(t, (events) => {
    t.same(changes(events), { fullName: 'Mr John Doe', lastName: 'Doe' }, 'and the last name follows a sent full name')
  })
  const reversed = receivedEvents({ phone: '5552345678', name: 'Doe, Jane' })
  t.match(reversed[0], { data: { fields: { fullName: 'Doe, Jane', firstName: 'Jane', lastName: 'Doe' } } }, 'a CRM export: last name first')
  spec(reversed).when(receive({ phone: '5552345678', first_name: 'Janet' })).then(t, (events) => {
    t.same(changes(events), { firstName: 'Janet', fullName: 'Janet Doe' })
  })
})

t.test("intake's warnings go on the submission's event, and only when there are any", async (t) => {
  const warned = (input: Record<string, unknown>): LeadCommand => {
    const result = normalizeLeadInput(input, { defaultCountry: 'US', timeZone: 'America/New_York', industry: null, now: NOW })
    if (!result.ok) throw new Error(result.error.message)
    return { type: 'ReceiveLead', accountId: 'acc_1', newLeadId: 'ld_1', fields: result.lead, derived: result.derived, warnings: result.warnings }
  }
  spec([]).when(warned({ phone: '000-000-0000', dnc: 'maybe' })).then(t, (events) => {
    t.same((events[0] as Extract<LeadEvent, { type: 'LeadReceived' }>).data.warnings?.map((w) => `${w.code}:${w.field}`), ['phone_not_valid:phone', 'dnc_unrecognized:dnc'])
  })
  spec([]).when(warned({ phone: '312-555-0142' })).then(t, (events) => {
    t.notOk('warnings' in (events[0] as LeadEvent).data, 'no warnings: no member, the event as before')
  })
  const given = receivedEvents({ phone: '3125550142' })
  spec(given).when(warned({ phone: '3125550142', email: 'nope' })).then(t, (events) => {
    t.match((events[0] as Extract<LeadEvent, { type: 'LeadUpdated' }>).data.warnings, [{ code: 'email_invalid', field: 'email' }], 'an update carries its own')
  })
  spec(given).when(warned({ phone: '3125550142', email: 'a@b.co' })).then(t, (events) => {
    t.notOk('warnings' in (events[0] as LeadEvent).data)
  })
})

t.test('do-not-call is sticky until the operator clears it', async (t) => {
  const given = receivedEvents({ phone: '5551234567', dnc: 'Yes' })
  t.equal(spec(given).when({ type: 'ClearDoNotCall' }).state.doNotCall, true)
  spec(given).when(receive({ phone: '5551234567', dnc: 'no' })).then(t, (events, after) => {
    t.same((events[0] as Extract<LeadEvent, { type: 'LeadUpdated' }>).data.changes, {})
    t.equal(after.doNotCall, true)
  })
  spec(given).when({ type: 'ClearDoNotCall' }).then(t, (events, after) => {
    t.same(events, [{ type: 'LeadDoNotCallCleared', data: { leadId: 'ld_1', clearedAt: NOW.toISOString() } }])
    t.equal(after.doNotCall, false)
    t.equal(after.fields?.doNotCall, false)
  })
  const notFlagged = receivedEvents({ phone: '5551234567' })
  spec(notFlagged).when({ type: 'ClearDoNotCall' }).then(t, [])
  spec(notFlagged).when(receive({ phone: '5551234567', do_not_call: 'TRUE' })).then(t, (events, after) => {
    t.same((events[0] as Extract<LeadEvent, { type: 'LeadUpdated' }>).data.changes, { doNotCall: true })
    t.equal(after.doNotCall, true)
  })
  spec([]).when({ type: 'ClearDoNotCall' }).thenThrows(t, 'lead_not_found')
})

t.test('stream names carry the account and the last ten digits', async (t) => {
  t.equal(leadStream('acc_1', '5551234567'), 'lead-acc_1-5551234567')
  t.same(parseLeadStream('lead-acc_1-5551234567'), { accountId: 'acc_1', phoneLast10: '5551234567' })
  t.equal(parseLeadStream('account-acc_1'), null)
  t.equal(parseLeadStream('lead-acc_1-555'), null)
})

t.test('evolve is total over unknown list ids and repeated list events', async (t) => {
  const fields = { phone: '+15551234567', phoneLast10: '5551234567', phoneRaw: '5551234567', industryFields: {}, extraFields: [] } satisfies LeadFields
  const state = [
    { type: 'LeadReceived', data: { leadId: 'ld_1', accountId: 'acc_1', fields, receivedAt: NOW.toISOString() } },
    { type: 'LeadAddedToList', data: { leadId: 'ld_1', listId: 'inbound-leads', listName: 'Inbound Leads' } },
    { type: 'LeadAddedToList', data: { leadId: 'ld_1', listId: 'inbound-leads', listName: 'Inbound Leads' } },
  ].reduce((s, e) => leadDecider.evolve(s, e as LeadEvent), leadDecider.initialState())
  t.same(state.lists, ['Inbound Leads'])
  // A list on the LeadReceived and the same list again as an event (a log that has both) is still one list.
  const listed = [
    { type: 'LeadReceived', data: { leadId: 'ld_1', accountId: 'acc_1', fields, receivedAt: NOW.toISOString(), list: { listId: 'inbound-leads', listName: 'Inbound Leads' } } },
    { type: 'LeadAddedToList', data: { leadId: 'ld_1', listId: 'inbound-leads', listName: 'Inbound Leads' } },
    { type: 'LeadAddedToList', data: { leadId: 'ld_1', listId: 'later-list', listName: 'Later List' } },
  ].reduce((s, e) => leadDecider.evolve(s, e as LeadEvent), leadDecider.initialState())
  t.same(listed.lists, ['Inbound Leads', 'Later List'])
})

t.test('the account can mark a lead do-not-call; marking twice is one event', async (t) => {
  const given = receivedEvents({ phone: '5551234567' })
  spec(given).when({ type: 'MarkDoNotCall' }).then(t, (events, after) => {
    t.same(events, [{ type: 'LeadMarkedDoNotCall', data: { leadId: 'ld_1', markedAt: NOW.toISOString() } }])
    t.equal(after.doNotCall, true)
    t.equal(after.fields?.doNotCall, true)
  })
  const marked = [...given, { type: 'LeadMarkedDoNotCall', data: { leadId: 'ld_1', markedAt: NOW.toISOString() } } as LeadEvent]
  spec(marked).when({ type: 'MarkDoNotCall' }).then(t, [])
  spec([]).when({ type: 'MarkDoNotCall' }).thenThrows(t, 'lead_not_found')
})

t.test('every new lead starts from one initial state, which nothing can change', async (t) => {
  const initial = leadDecider.initialState()
  t.equal(leadDecider.initialState(), initial, 'the same state each time (so it must never be written to)')
  t.ok(Object.isFrozen(initial), 'frozen: a write to it throws instead of leaking into the next lead')
  t.throws(() => {
    ;(initial as { submissions: number }).submissions = 5
  }, TypeError)
  const [received] = receivedEvents({ name: 'Jane Doe', phone: '5551234567' })
  const after = leadDecider.evolve(initial, received as LeadEvent)
  t.not(after, initial)
  t.equal(after.submissions, 1)
  t.equal(initial.submissions, 0, 'evolving a lead leaves the initial state as it was')
  t.equal(initial.exists, false)
  t.same(leadDecider.initialState().lists, [])
})
