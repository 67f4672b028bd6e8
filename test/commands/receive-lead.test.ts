/**
 * receiveLead's lead ids carry the moment the lead was received, on the commands' clock: the id's
 * first ten digits are that millisecond (docs/webhook.md), so ids sort as the leads arrived, a clock
 * at a digit's boundary included.
 */
import t from 'tap'
import { receiveLead } from '../../src/commands/receive-lead.command.ts'
import { buildApp, operatorContext } from '../helpers/build-app.ts'

const DIGITS = '0123456789abcdefghjkmnpqrstvwxyz'
/** The milliseconds an id's time digits say, read back digit by digit. */
const millisecondOf = (leadId: string): number => [...leadId.slice(3, 13)].reduce((n, digit) => n * 32 + DIGITS.indexOf(digit), 0)

t.test('a new lead id starts with the millisecond it was received, on the clock the lead records', async (t) => {
  let now = new Date('2026-03-10T15:00:00.000Z')
  const built = await buildApp(t, { clock: () => now })
  const { account } = await built.createAccount('Clock Co')
  const first = await receiveLead(built.leadline, account, { name: 'Jane Doe', phone: '(312) 555-0142' }, operatorContext)
  t.match(first.leadId, /^ld_[0-9a-hjkmnp-tv-z]{26}$/)
  t.equal(millisecondOf(first.leadId), now.getTime())
  await built.leadline.runner.waitFor(first.position as number)
  t.equal(built.leadline.inboundLeads.get(account.accountId, { leadId: first.leadId })?.receivedAt, now.toISOString(), 'the lead says it was received at that moment')

  // A millisecond whose last digit is z, and the next, whose last digit is 0 and carries into the one before.
  const carry = Math.ceil((now.getTime() + 1) / 32) * 32
  now = new Date(carry - 1)
  const before = await receiveLead(built.leadline, account, { name: 'Lee Park', phone: '(312) 555-0170' }, operatorContext)
  now = new Date(carry)
  const after = await receiveLead(built.leadline, account, { name: 'Ann Lee', phone: '(312) 555-0171' }, operatorContext)
  t.equal(millisecondOf(before.leadId), carry - 1)
  t.equal(millisecondOf(after.leadId), carry)
  t.ok(first.leadId < before.leadId && before.leadId < after.leadId, 'ids sort as the leads arrived, across a carry of the digits')

  const again = await receiveLead(built.leadline, account, { name: 'Jane Doe', phone: '312-555-0142' }, operatorContext)
  t.equal(again.leadId, first.leadId, 'the same person later keeps the id of their first arrival')
})
