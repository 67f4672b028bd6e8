/**
 * The TwiML served when a lead answers (the greeting's menu, the bridge, the voice assistant), the
 * answers to the menu's keys, and the whisper the owner hears before the bridge.
 */
import { readFileSync } from 'node:fs'
import t from 'tap'
import { DEFAULT_VOICEMAIL, renderVoicemail } from '../../../src/domain/dialing/voicemail.ts'
import {
  MAX_SPOKEN_NAME, answerTwiml, liveCallTwiml, menuAnswerTwiml, ownerDialTwiml, spokenText, whisperTwiml,
} from '../../../src/integrations/carrier/twilio/answer-twiml.ts'

const XML = '<?xml version="1.0" encoding="UTF-8"?>'
const WHISPER = 'https://leadline.example/api/carrier/twilio/whisper?call=dec_1'
const MENU = 'https://leadline.example/api/carrier/twilio/menu?decision=dec_1'
const OWNER_DIAL = 'https://leadline.example/api/carrier/twilio/owner-dial?decision=dec_1'
const GATHER = '<Gather numDigits="1" timeout="6" action="https://leadline.example/api/carrier/twilio/menu?decision=dec_1" method="POST">'
const NO_KEY = '<Say>Thank you for your time. Goodbye.</Say><Hangup/>'

t.test('bridge: dials the owner, whose Number fetches the whisper', async (t) => {
  t.equal(
    answerTwiml({ mode: { kind: 'bridge', ownerNumber: '+15125550199' }, leadName: 'Jane Doe', businessName: 'Acme Plumbing', whisperUrl: WHISPER }),
    `${XML}<Response><Dial><Number url="https://leadline.example/api/carrier/twilio/whisper?call=dec_1" method="POST">+15125550199</Number></Dial></Response>`,
  )
})

t.test('the whisper names the lead, to the owner only', async (t) => {
  t.equal(whisperTwiml('Jane Doe'), `${XML}<Response><Say>New lead: Jane Doe. Connecting you now.</Say></Response>`)
  t.equal(whisperTwiml('Jane Doe', 'Spring <FB> ads'), `${XML}<Response><Say>New lead: Jane Doe, from Spring FB ads. Connecting you now.</Say></Response>`, 'the source, cleaned')
  t.equal(whisperTwiml(null, 'Web'), `${XML}<Response><Say>New lead, from Web. Connecting you now.</Say></Response>`)
  t.equal(whisperTwiml(null), `${XML}<Response><Say>New lead. Connecting you now.</Say></Response>`)
  t.equal(whisperTwiml(' \u0000 '), `${XML}<Response><Say>New lead. Connecting you now.</Say></Response>`, 'nothing speakable')
})

t.test('twiml: hands the call to the account’s voice assistant', async (t) => {
  t.equal(
    answerTwiml({ mode: { kind: 'twiml', url: 'https://assistant.example/voice?a=1&b=2' }, leadName: 'Jane', businessName: 'Acme' }),
    `${XML}<Response><Redirect method="POST">https://assistant.example/voice?a=1&amp;b=2</Redirect></Response>`,
  )
  t.throws(() => answerTwiml({ mode: { kind: 'twiml', url: 'javascript:alert(1)' }, leadName: 'Jane', businessName: 'Acme' }), TypeError)
  t.throws(() => answerTwiml({ mode: { kind: 'twiml', url: 'assistant' }, leadName: 'Jane', businessName: 'Acme' }), TypeError)
})

t.test('greeting with an owner number: who calls and why first, then a menu with 1, 2 and 9', async (t) => {
  t.equal(
    answerTwiml({ mode: { kind: 'greeting', ownerNumber: '+15125550199' }, leadName: 'Jane', businessName: 'Acme Plumbing', whisperUrl: WHISPER, menuUrl: MENU }),
    `${XML}<Response>${GATHER}<Say>Hi Jane, this is Acme Plumbing calling about the request you sent us.</Say>` +
      '<Say>Press 1 to speak with someone now. Press 2 to have us call you back later. Press 9 to stop these calls.</Say></Gather>' +
      `${NO_KEY}</Response>`,
  )
})

t.test('greeting without an owner number: the menu offers no 1', async (t) => {
  t.equal(
    answerTwiml({ mode: { kind: 'greeting', ownerNumber: null }, leadName: null, businessName: 'Acme Plumbing', menuUrl: MENU }),
    `${XML}<Response>${GATHER}<Say>Hi, this is Acme Plumbing calling about the request you sent us.</Say>` +
      `<Say>Press 2 to have us call you back later. Press 9 to stop these calls.</Say></Gather>${NO_KEY}</Response>`,
  )
  t.throws(() => answerTwiml({ mode: { kind: 'greeting', ownerNumber: null }, leadName: null, businessName: 'Acme' }), { name: 'TypeError', message: /menuUrl/ })
})

t.test('the menu’s answers: connect dials the owner from the account’s number, the rest end politely', async (t) => {
  const urls = { whisperUrl: WHISPER, ownerDialUrl: OWNER_DIAL }
  t.equal(
    menuAnswerTwiml({ choice: 'connect', ownerNumber: '+15125550199', callerId: '+13125550100', leadName: 'Jane' }, urls),
    `${XML}<Response><Say>Connecting you now.</Say>` +
      `<Dial callerId="+13125550100" action="https://leadline.example/api/carrier/twilio/owner-dial?decision=dec_1" method="POST">` +
      `<Number url="https://leadline.example/api/carrier/twilio/whisper?call=dec_1" method="POST">+15125550199</Number></Dial></Response>`,
  )
  t.equal(
    menuAnswerTwiml({ choice: 'callback', spokenTime: 'tomorrow at 9 AM' }, urls),
    `${XML}<Response><Say>Thank you. We will call you back tomorrow at 9 AM. Goodbye.</Say><Hangup/></Response>`,
  )
  t.equal(menuAnswerTwiml({ choice: 'callback', spokenTime: null }, urls), `${XML}<Response><Say>Thank you. We will be in touch. Goodbye.</Say><Hangup/></Response>`)
  t.equal(menuAnswerTwiml({ choice: 'opt_out' }, urls), `${XML}<Response><Say>You will not be called again. Goodbye.</Say><Hangup/></Response>`)
  t.equal(menuAnswerTwiml({ choice: 'none' }, urls), `${XML}<Response>${NO_KEY}</Response>`)
  t.throws(() => menuAnswerTwiml({ choice: 'connect', ownerNumber: '+15125550199', callerId: '312', leadName: null }, urls), { name: 'TypeError', message: /caller id/ })
})

t.test('after the owner’s leg: thanks after a talk, an apology when no one answered', async (t) => {
  t.equal(ownerDialTwiml('completed'), `${XML}<Response><Say>Thank you for talking with us. Goodbye.</Say><Hangup/></Response>`)
  for (const status of ['busy', 'no-answer', 'failed', 'canceled']) {
    t.equal(ownerDialTwiml(status), `${XML}<Response><Say>Sorry, no one could take your call just now. We have your request. Goodbye.</Say><Hangup/></Response>`, status)
  }
})

t.test('the lead name from the public webhook is escaped, cleaned and capped', async (t) => {
  const xml = answerTwiml({
    mode: { kind: 'greeting', ownerNumber: null },
    leadName: 'Tom & Jerry</Say><Dial>+19005550000</Dial><Say>\u0007\u202e',
    businessName: 'Smith & Sons',
    menuUrl: MENU,
  })
  t.equal(
    xml,
    `${XML}<Response>${GATHER}<Say>Hi Tom &amp; Jerry /Say Dial 19005550000 /Dial Say, this is Smith &amp; Sons calling about the request you sent us.</Say>` +
      `<Say>Press 2 to have us call you back later. Press 9 to stop these calls.</Say></Gather>${NO_KEY}</Response>`,
  )
  t.notMatch(xml, /<Dial>/, 'no injected verb')

  const long = 'Bartholomew '.repeat(20)
  const capped = spokenText(long, MAX_SPOKEN_NAME)
  t.ok(capped !== null && Array.from(capped).length <= MAX_SPOKEN_NAME, 'capped')
  t.match(whisperTwiml(long), /<Say>New lead: Bartholomew( Bartholomew)+\. Connecting you now\.<\/Say>/)
  t.equal(spokenText('  Zoë \n  Ångström  ', 60), 'Zoë Ångström', 'letters kept, whitespace collapsed')
  t.equal(spokenText("Conor O'Brien-Smith", 60), "Conor O'Brien-Smith")
  t.equal(spokenText('<<>>', 60), null)
  t.equal(spokenText(undefined, 60), null)
})

t.test('bridging needs an E.164 owner number and a whisper URL', async (t) => {
  t.throws(
    () => answerTwiml({ mode: { kind: 'bridge', ownerNumber: '512-555-0199' }, leadName: 'Jane', businessName: 'Acme', whisperUrl: WHISPER }),
    { name: 'TypeError', message: /E\.164/ },
  )
  t.throws(() => answerTwiml({ mode: { kind: 'bridge', ownerNumber: '+15125550199' }, leadName: 'Jane', businessName: 'Acme' }), {
    name: 'TypeError',
    message: /whisperUrl/,
  })
  t.throws(() => menuAnswerTwiml({ choice: 'connect', ownerNumber: '512-555-0199', callerId: '+13125550100', leadName: null }, { whisperUrl: WHISPER, ownerDialUrl: OWNER_DIAL }), {
    name: 'TypeError',
    message: /E\.164/,
  })
})

t.test('the TwiML dialing.md shows is what Leadline serves', async (t) => {
  const page = readFileSync(new URL('../../../docs/dialing.md', import.meta.url), 'utf8')
  const shown = [...page.matchAll(/```xml\n([\s\S]*?)```/g)].map(([, block]) =>
    XML + (block as string).replace(/>\s+</g, '><').trim().replaceAll('{base_url}', 'https://leadline.example').replaceAll('dec_…', 'dec_1'),
  )
  const menu = answerTwiml({ mode: { kind: 'greeting', ownerNumber: '+13125550199' }, leadName: 'Jane Doe', businessName: 'Acme Insurance', menuUrl: MENU })
  const voicemail = liveCallTwiml({ kind: 'say', text: renderVoicemail(DEFAULT_VOICEMAIL, { firstName: 'Jane', business: 'Acme Insurance', callbackNumber: '+13125550100' }) })
  t.same(shown, [menu, voicemail])
})
