/** On-answer modes: what `--on-answer` accepts, how it is stored, and what it refuses. */
import t from 'tap'
import { DEFAULT_ON_ANSWER, agentFirstNumbers, formatOnAnswer, parseOnAnswer, usesAssistant } from '../../../src/domain/dialing/on-answer.ts'
import { validateSettingsChange } from '../../../src/domain/account/account-settings.ts'

t.test('the modes', async (t) => {
  t.equal(DEFAULT_ON_ANSWER, 'greeting')
  t.same(parseOnAnswer('greeting'), { kind: 'greeting', ownerNumber: null })
  t.same(parseOnAnswer(' greeting+bridge:+13125550100 '), { kind: 'greeting', ownerNumber: '+13125550100' })
  t.same(parseOnAnswer('bridge:+13125550100'), { kind: 'bridge', ownerNumber: '+13125550100' })
  t.same(parseOnAnswer('twiml:https://assistant.example.com/voice?id=7'), { kind: 'twiml', url: 'https://assistant.example.com/voice?id=7' })
  t.same(parseOnAnswer('twiml:http://assistant.example.com'), { kind: 'twiml', url: 'http://assistant.example.com/' }, 'stored as a normalised URL')
  t.same(parseOnAnswer('agent-first:+13125550100'), { kind: 'agent-first', ownerNumbers: ['+13125550100'], fallback: null })
  t.same(parseOnAnswer('agent-first:+13125550100, +13125550101'), { kind: 'agent-first', ownerNumbers: ['+13125550100', '+13125550101'], fallback: null }, 'rung in this order')
  t.same(parseOnAnswer('agent-first:+13125550100,+13125550101;then=assistant'), { kind: 'agent-first', ownerNumbers: ['+13125550100', '+13125550101'], fallback: 'assistant' }, 'then the assistant when no owner accepts')
  t.same(parseOnAnswer(' assistant '), { kind: 'assistant' })
  t.ok(usesAssistant(parseOnAnswer('assistant')))
  t.ok(usesAssistant(parseOnAnswer('agent-first:+13125550100;then=assistant')))
  t.notOk(usesAssistant(parseOnAnswer('agent-first:+13125550100')))
  t.notOk(usesAssistant(parseOnAnswer('greeting')))
  t.same(agentFirstNumbers('agent-first:+13125550100;then=assistant'), ['+13125550100'])
  t.same(agentFirstNumbers('agent-first:+13125550100,+13125550101'), ['+13125550100', '+13125550101'])
  t.equal(agentFirstNumbers('greeting'), null)
})

t.test('every mode is stored in a form that reads back the same', async (t) => {
  for (const spec of ['greeting', 'greeting+bridge:+13125550100', 'bridge:+442071838750', 'twiml:https://assistant.example.com/voice', 'agent-first:+13125550100,+442071838750', 'agent-first:+13125550100;then=assistant', 'assistant']) {
    t.equal(formatOnAnswer(parseOnAnswer(spec)), spec, spec)
  }
  t.same(validateSettingsChange({ onAnswer: 'twiml:HTTPS://Assistant.example.com' }), { onAnswer: 'twiml:https://assistant.example.com/' }, 'account settings keep the canonical form')
  t.same(validateSettingsChange({ onAnswer: ' agent-first: +13125550100 ,+13125550101 ' }), { onAnswer: 'agent-first:+13125550100,+13125550101' })
})

t.test('refusals (invalid_on_answer)', async (t) => {
  const table: Array<[string, RegExp]> = [
    ['bridge:3125550100', /use greeting/],
    ['bridge:+0123', /use greeting/],
    ['bridge', /use greeting/],
    ['greeting+bridge:', /use greeting/],
    ['ring', /use greeting/],
    ['', /use greeting/],
    ['twiml:not a url', /not a URL/],
    ['twiml:ftp://assistant.example.com/voice', /must be http/],
    ['twiml:javascript:alert(1)', /must be http/],
    ['agent-first:', /"" is not an E\.164 number/],
    ['agent-first:3125550100', /"3125550100" is not an E\.164 number/],
    ['agent-first:+13125550100,,+13125550101', /"" is not an E\.164/],
    ['agent-first:+13125550100,+13125550100', /listed twice/],
    ['agent-first:+13125550100;then=greeting', /only ";then=assistant" may follow/],
    ['agent-first:+13125550100;then=assistant;then=assistant', /only ";then=assistant" may follow/],
    ['assistant:+13125550100', /use greeting/],
    [`agent-first:${['0', '1', '2', '3', '4', '5'].map((d) => `+1312555010${d}`).join(',')}`, /at most 5 numbers/],
  ]
  for (const [spec, message] of table) {
    t.throws(() => parseOnAnswer(spec), { name: 'DomainError', code: 'invalid_on_answer', message }, JSON.stringify(spec))
  }
})
