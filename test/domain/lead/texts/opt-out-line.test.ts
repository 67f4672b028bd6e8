/**
 * Every text ends with its opt-out line (issue #40): appended unless the body's LAST line already is
 * one; a STOP mentioned anywhere else ("Please don't reply STOP…") does not count. Follow-up text
 * steps and pay-links are composed by the same rule.
 */
import t from 'tap'
import { endsWithOptOutLine, OPT_OUT_LINE, withOptOutLine } from '../../../../src/domain/lead/texts/text-body.ts'
import { composeText } from '../../../../src/domain/lead/texts/texts.decider.ts'
import { renderPayLinkText, DEFAULT_PAY_LINK_TEMPLATE } from '../../../../src/domain/account/pay-link-text.ts'
import { DEFAULT_SETTINGS } from '../../../../src/domain/account/account-settings.ts'

const IS_ONE = [
  'Reply STOP to opt out.',
  'Your quote is ready.\nReply STOP to opt out.',
  'Your quote is ready. Reply STOP to opt out',
  'Msg&data rates may apply. Reply STOP to opt out.',
  'text stop to end',
  'Respond with "STOP" to unsubscribe',
  'Reply STOP to unsubscribe from these messages.',
  'Opt out: reply STOP',
  'To unsubscribe, reply STOP.',
  'Reply HELP for help, STOP to cancel.',
  'Reply STOP to opt out, HELP for help.',
  'Reply STOP to opt out.\n\n  ',
  'Ｒｅｐｌｙ ＳＴＯＰ ｔｏ ｏｐｔ ｏｕｔ',
  'Reply S\u200dTOP to opt out.',
]
const IS_NOT = [
  "Please don't reply STOP, we need your answer.",
  "Please don't reply STOP",
  'Reply STOP to opt out.\nOr click http://example.com to claim your prize',
  'Reply STOP to opt out. Or not.',
  'We will stop by at 5. Reply STOP',
  'Stopping by at 3',
  'nonstop deals',
  'STOP',
  'If you reply STOP to opt out you will miss our offers',
  'Reply STOP to opt out.\nThanks!',
]

t.test("the last line decides: an opt-out line there counts, a STOP anywhere else does not", async (t) => {
  for (const body of IS_ONE) {
    t.ok(endsWithOptOutLine(body), JSON.stringify(body))
    t.equal(withOptOutLine(body), body.trim(), `nothing appended to ${JSON.stringify(body)}`)
  }
  for (const body of IS_NOT) {
    t.notOk(endsWithOptOutLine(body), JSON.stringify(body))
    t.equal(withOptOutLine(body), `${body.trim()}\n${OPT_OUT_LINE}`, `the line appended to ${JSON.stringify(body)}`)
    t.ok(endsWithOptOutLine(withOptOutLine(body)), 'and then it ends with one')
  }
})

t.test('send_sms and text steps compose with it; a pay-link text ends with it too', async (t) => {
  const settings = DEFAULT_SETTINGS
  t.equal(composeText(settings, "Please don't reply STOP, we need your answer.").body, `Please don't reply STOP, we need your answer.\n${OPT_OUT_LINE}`)
  const values = { business: 'Acme Roofing', description: 'Roof repair deposit', amount: '$125.00', link: 'https://pay.example/abc' }
  t.equal(renderPayLinkText(DEFAULT_PAY_LINK_TEMPLATE, values), `Acme Roofing: Roof repair deposit, $125.00. Pay securely by card here: https://pay.example/abc\n${OPT_OUT_LINE}`)
  t.equal(renderPayLinkText('{business}: pay {amount} at {link}\nReply STOP to opt out.', values), 'Acme Roofing: pay $125.00 at https://pay.example/abc\nReply STOP to opt out.', 'a template that ends with one keeps its own')
})

t.test('a hostile last line is read in linear time: bounded patterns only', async (t) => {
  const body = `Reply STOP to opt out ${'to opt out '.repeat(10_000)}`
  t.notOk(endsWithOptOutLine(body))
  t.ok(endsWithOptOutLine(`${'x '.repeat(50_000)}\nReply STOP to opt out.`))
})
