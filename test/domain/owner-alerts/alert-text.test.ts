/**
 * Owner alerts relay nothing a lead can use to deceive (issue #40): a lead-supplied name is cut to 60
 * characters, with links, e-mail addresses, phone numbers other than the lead's own and invisible
 * characters taken out; the alert is at most 2 SMS segments; times are in the account's zone, named.
 */
import t from 'tap'
import { alertText, alertTime, MAX_LEAD_FIELD, relayable } from '../../../src/domain/owner-alerts/alert-text.ts'
import { textSegments } from '../../../src/domain/lead/texts/text-body.ts'
import { ALERT_KINDS } from '../../../src/domain/owner-alerts/owner-alerts.events.ts'

const CONTEXT = { timeZone: 'America/Chicago', defaultCountry: 'US' }
const JANE = '+13125550142'
const lead = (name: string | null, phone: string | null = JANE) => ({ name, phone, phoneLast10: '3125550142' })

t.test('the texts, as the owner reads them; a time in the account zone, named', async (t) => {
  t.equal(alertText('new_lead', lead('Jane Doe'), CONTEXT), 'Leadline: new lead Jane Doe +13125550142')
  t.equal(alertText('callback', lead('Jane Doe'), CONTEXT, { callbackAt: '2026-11-26T16:00:00.000Z' }), 'Leadline: Jane Doe +13125550142 asked to be called back (Thu 26 Nov, 10:00 AM America/Chicago)')
  t.equal(alertText('replied', lead(null, null), CONTEXT), 'Leadline: …0142 replied by text (read it in the console)')
  t.equal(alertText('payment', lead('Jane Doe'), CONTEXT, { amount: '$125.00' }), 'Leadline: Jane Doe +13125550142 paid $125.00')
  t.equal(
    alertText('missed_call', lead('Jane Doe'), CONTEXT, { missedAt: '2026-11-26T16:00:00.000Z', callbackRequested: false }),
    'Leadline: missed call from Jane Doe +13125550142 (Thu 26 Nov, 10:00 AM America/Chicago)',
  )
  t.equal(alertText('missed_call', lead(null), CONTEXT, { missedAt: '2026-11-26T16:00:00.000Z', callbackRequested: true }), 'Leadline: missed call from +13125550142 (Thu 26 Nov, 10:00 AM America/Chicago); they asked for a call back')
  t.equal(alertTime('2026-07-01T23:30:00.000Z', 'Europe/London'), 'Thu 2 Jul, 12:30 AM Europe/London', 'the zone\'s own date and summer time')
  t.equal(alertTime('2026-11-26T16:00:00.000Z', 'Asia/Kolkata'), 'Thu 26 Nov, 9:30 PM Asia/Kolkata')
  t.notMatch(alertText('callback', lead('Jane'), CONTEXT, { callbackAt: '2026-11-26T16:00:00.000Z' }), /\d{4}-\d\d-\d\dT|Z\)/, 'no UTC ISO time')
})

t.test('links, e-mail addresses and other numbers are taken out of what the lead typed', async (t) => {
  const cases: Array<[string, string]> = [
    ['Jane https://evil.example/pay now', 'Jane now'],
    ['Jane http:evil', 'Jane'],
    ['Jane www.evil.example', 'Jane'],
    ['Jane bit.ly/3xYz', 'Jane'],
    ['Jane evil.com', 'Jane'],
    ['Jane evil。com', 'Jane'],
    ['Jane ｅｖｉｌ．ｃｏｍ', 'Jane'],
    ['Jane 10.0.0.1', 'Jane'],
    ['Jane tel:+13125550199', 'Jane'],
    ['Jane jane@evil.example', 'Jane'],
    ['Mail me: jane at evil', 'Mail jane at evil'],
    ['Call 312-555-0199 urgent', 'Call urgent'],
    ['Call (312) 555 0199', 'Call'],
    ['Call +44 20 7946 0958 now', 'Call now'],
    ['Call 555-0199', 'Call'],
    ['Call ３１２５５５０１９９', 'Call'],
    ['Call 3 1 2 5 5 5 0 1 9 9', 'Call'],
    ['Jane 312 555 0142', 'Jane 312 555 0142'],
    ['Jane\u202Emoc.live//:sptth', 'Jane'],
    ['Jane\u200b\nDoe\t', 'Jane Doe'],
    ['J.R. Smith', 'J.R. Smith'],
    ["Mary-Jane O'Neil", "Mary-Jane O'Neil"],
    ['José Álvarez', 'José Álvarez'],
  ]
  for (const [typed, relayed] of cases) t.equal(relayable(typed, JANE, CONTEXT), relayed, JSON.stringify(typed))
})

t.test('60 characters a field, and never more than 2 segments, whatever the name', async (t) => {
  t.equal(relayable('x'.repeat(1000), JANE, CONTEXT), 'x'.repeat(MAX_LEAD_FIELD))
  t.equal([...relayable('😀'.repeat(100), JANE, CONTEXT)].length, MAX_LEAD_FIELD, 'characters, never half an emoji')
  t.equal(relayable(`${'https://evil.example/x '.repeat(3000)}Jane`, JANE, CONTEXT), '', 'a 64 kB field is read only as far as its first 1,000 characters')
  t.equal(relayable(`${'Call 312-555-0199 '.repeat(5)}Jane Doe`, JANE, CONTEXT), 'Call Call Call Call Call Jane Doe')
  const names = ['x'.repeat(1000), 'ō'.repeat(1000), '😀'.repeat(1000), `${'a '.repeat(500)}https://evil.example`, 'Jane Doe', '', '\u200b'.repeat(1000)]
  for (const name of names) {
    for (const kind of ALERT_KINDS) {
      const text = alertText(kind, lead(name), CONTEXT, { amount: '$1,250,000.00', callbackAt: '2026-11-26T16:00:00.000Z', missedAt: '2026-11-26T16:00:00.000Z', callbackRequested: true })
      t.ok(textSegments(text).segments <= 2, `${kind}, ${JSON.stringify(name.slice(0, 8))}…: ${textSegments(text).segments} segments`)
      t.match(text, /\+13125550142/, 'the lead\'s own number is always there')
    }
  }
})
