/**
 * Opt-out heard in every spelling, end to end (issue #40): texts posted as Twilio's messaging webhook
 * (signed with the official SDK) reach the one consent classifier. A plain-language opt-out ("Please
 * stop texting me") or a keyword drowned in punctuation (STOP and 40 "!") makes the lead do-not-call,
 * is confirmed by one text, and takes the lead off get_next_actions' "call now"; an ordinary reply that
 * merely contains "stop" ("Can you stop by at 5?") is a reply and lists the lead.
 */
import t from 'tap'
import { fakeTwilio, twilioEnv, CALLER_ID } from '../../helpers/dialing-app.ts'
import { inboundText } from '../../helpers/inbound-text.ts'
import { mcpApp } from '../mcp/mcp-helpers.ts'
import { leadStream } from '../../../src/domain/lead/lead.events.ts'

const OWNER = '+15125550199'
const LEADS = {
  jane: { name: 'Jane Doe', phone: '+13125550142', says: ['Yes, call me after 5', 'Please stop texting me'] },
  bob: { name: 'Bob Back', phone: '+14155550101', says: ['Can you stop by at 5?'] },
  carl: { name: 'Carl Case', phone: '+13125550143', says: [`STOP${'!'.repeat(40)}`] },
  dee: { name: 'Dee Dee', phone: '+13125550144', says: [`${' '.repeat(40)}U\u200dN\u200dSUBSCRIBE${'!'.repeat(40)}`] },
  eve: { name: 'Eve Early', phone: '+13125550145', says: ["I'll stop in tomorrow"] },
  fay: { name: 'Fay Far', phone: '+13125550146', says: ['Take me off your list'] },
}

t.test('plain-language and punctuated opt-outs are opt-outs; replies that contain "stop" are replies', async (t) => {
  const clock = { now: new Date('2026-03-10T16:00:00Z') }
  const fake = await fakeTwilio(t)
  const app = await mcpApp(t, { env: twilioEnv(fake), start: false, clock: () => clock.now })
  const account = await app.account('Acme Roofing', {
    speedToLead: true, callerId: CALLER_ID, callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, timeZone: 'America/New_York', onAnswer: `greeting+bridge:${OWNER}`,
  })
  for (const lead of Object.values(LEADS)) await account.pushLead({ name: lead.name, phone: lead.phone })
  for (const lead of Object.values(LEADS)) {
    for (const body of lead.says) {
      clock.now = new Date(clock.now.getTime() + 60_000)
      t.equal(await inboundText(app.app, fake, body, { from: lead.phone }), 200)
    }
  }
  await app.settle()

  for (const [who, lead] of Object.entries(LEADS)) {
    const log = await app.leadline.store.readStream(leadStream(account.accountId, lead.phone.slice(-10)))
    const optedOut = ['jane', 'carl', 'dee', 'fay'].includes(who)
    t.equal(log.some((e) => e.type === 'LeadMarkedDoNotCall' && (e.data as { source?: string }).source === 'sms_keyword'), optedOut, `${who}: do-not-call ${optedOut}`)
    const last = log.filter((e) => e.type === 'TextReceived').at(-1)
    t.match(last?.data, { keyword: optedOut ? 'opt_out' : null }, `${who}: the text's verdict`)
    const confirmations = fake.messageRequests().filter((m) => m.form.To === lead.phone && /you are unsubscribed/.test(String(m.form.Body)))
    t.equal(confirmations.length, optedOut ? 1 : 0, `${who}: ${optedOut ? 'one confirmation' : 'no confirmation'}`)
  }

  const next = (await app.call(account.keys.read, 'get_next_actions', {})).result?.structuredContent as { stale_leads: Array<{ name: string; why: string }> }
  const replied = next.stale_leads.filter((l) => l.why === 'replied').map((l) => l.name).sort()
  t.same(replied, ['Bob Back', 'Eve Early'], 'only the replies are "call now"; Jane, who replied and then opted out, is not')
  t.match(await app.call(account.keys.all, 'place_call', { phone: LEADS.jane.phone, name: 'Jane Doe', idempotency_key: 'after-plain-stop' }), { error: { data: { code: 'do_not_call' } } })
})
