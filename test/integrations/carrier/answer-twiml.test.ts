/**
 * The TwiML served when a lead answers, and the whisper the owner hears before the bridge.
 */
import t from 'tap'
import { MAX_SPOKEN_NAME, answerTwiml, spokenText, whisperTwiml } from '../../../src/integrations/carrier/twilio/answer-twiml.ts'

const XML = '<?xml version="1.0" encoding="UTF-8"?>'
const WHISPER = 'https://leadline.example/api/carrier/twilio/whisper?call=dec_1'

t.test('bridge: dials the owner, whose Number fetches the whisper', async (t) => {
  t.equal(
    answerTwiml({ mode: { kind: 'bridge', ownerNumber: '+15125550199' }, leadName: 'Jane Doe', businessName: 'Acme Plumbing', whisperUrl: WHISPER }),
    `${XML}<Response><Dial><Number url="https://leadline.example/api/carrier/twilio/whisper?call=dec_1" method="POST">+15125550199</Number></Dial></Response>`,
  )
})

t.test('the whisper names the lead, to the owner only', async (t) => {
  t.equal(whisperTwiml('Jane Doe'), `${XML}<Response><Say>New lead: Jane Doe. Connecting you now.</Say></Response>`)
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

t.test('greeting with an owner number: a short greeting, then the bridge', async (t) => {
  t.equal(
    answerTwiml({ mode: { kind: 'greeting', ownerNumber: '+15125550199' }, leadName: 'Jane', businessName: 'Acme Plumbing', whisperUrl: WHISPER }),
    `${XML}<Response><Say>Hi Jane, this is Acme Plumbing following up on your request. Please hold while we connect you.</Say>` +
      `<Dial><Number url="https://leadline.example/api/carrier/twilio/whisper?call=dec_1" method="POST">+15125550199</Number></Dial></Response>`,
  )
})

t.test('greeting without an owner number: a polite goodbye', async (t) => {
  t.equal(
    answerTwiml({ mode: { kind: 'greeting', ownerNumber: null }, leadName: null, businessName: 'Acme Plumbing' }),
    `${XML}<Response><Say>Hi, thanks for reaching out to Acme Plumbing. We have your request and will be in touch shortly. Goodbye.</Say><Hangup/></Response>`,
  )
})

t.test('the lead name from the public webhook is escaped, cleaned and capped', async (t) => {
  const xml = answerTwiml({
    mode: { kind: 'greeting', ownerNumber: null },
    leadName: 'Tom & Jerry</Say><Dial>+19005550000</Dial><Say>\u0007\u202e',
    businessName: 'Smith & Sons',
  })
  t.equal(
    xml,
    `${XML}<Response><Say>Hi Tom &amp; Jerry /Say Dial 19005550000 /Dial Say, thanks for reaching out to Smith &amp; Sons. ` +
      'We have your request and will be in touch shortly. Goodbye.</Say><Hangup/></Response>',
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
  t.throws(() =>
    answerTwiml({ mode: { kind: 'greeting', ownerNumber: '+15125550199' }, leadName: 'Jane', businessName: 'Acme' }),
  )
})
