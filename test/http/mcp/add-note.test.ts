/** add_note through the tool endpoint (issue #30): a note on the lead's history, with its author; shown by get_lead and get_lead_history. */
import t from 'tap'
import { MAX_NOTE_LENGTH } from '../../../src/domain/lead/intake/lead-edits.ts'
import { janeApp, writeToolChecks } from './write-tool-checks.ts'

writeToolChecks(t, {
  tool: 'add_note',
  scope: 'write',
  args: { text: 'Prefers mornings; asked about a metal roof.' },
  event: 'NoteAdded',
  bad: [
    { args: { text: '' }, code: 'invalid_arguments' },
    { args: { text: 'x'.repeat(MAX_NOTE_LENGTH + 1) }, code: 'invalid_arguments' },
    { args: { text: '   \n ' }, code: 'note_empty' },
    { args: { text: 42 }, code: 'invalid_arguments' },
  ],
})

t.test('a note is kept trimmed with its author, counted and shown by get_lead and get_lead_history', async (t) => {
  const { app, acme } = await janeApp(t, {})
  const answer = await app.call(acme.keys.write, 'add_note', { phone: '312.555.0142', text: '  Prefers mornings.  ', idempotency_key: 'n-1' })
  t.match(answer.result?.structuredContent, { text: 'Prefers mornings.', notes_total: 1, dry_run: false, note_id: /^note_/ })
  await app.call(acme.keys.write, 'add_note', { phone: '312.555.0142', text: 'Called back, wants a quote by Friday.', idempotency_key: 'n-2' })
  const lead = (await app.call(acme.keys.read, 'get_lead', { phone: '312.555.0142' })).result?.structuredContent
  t.equal(lead.notes_total, 2)
  t.match(lead.notes, [
    { text: 'Prefers mornings.', author: { kind: 'api_key', id: acme.keyIds.write } },
    { text: 'Called back, wants a quote by Friday.' },
  ])
  const history = (await app.call(acme.keys.read, 'get_lead_history', { phone: '312.555.0142' })).result?.structuredContent
  const lines = JSON.stringify(history)
  t.match(lines, `note by api_key ${acme.keyIds.write}: \\"Prefers mornings.\\"`)
})
