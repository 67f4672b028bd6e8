/**
 * The TwiML in docs/inbound.md is what the voice route answers: each flow is played through the real
 * route (POST /api/carrier/twilio/<hook>, signed with the official SDK, the fake Twilio behind it), and
 * each answer must equal the block the page marks `<!-- twiml: NAME -->` (whitespace between tags,
 * the public URL shown as {base_url} and the call's sid as CA… aside).
 */
import { readFileSync } from 'node:fs'
import t from 'tap'
import type { Test } from 'tap'
import { CALLER_ID, PUBLIC_URL, dialingApp, fakeTwilio, manualClock, postLead } from '../helpers/dialing-app.ts'
import { hookPath, newCallSid, postTwilio, voiceParams } from '../helpers/inbound-call.ts'

/** Tuesday 10 March 2026, 11:00 in New York: inside mon-fri 09:00-18:00. */
const TUESDAY_11AM = '2026-03-10T15:00:00Z'
const JANE = '+13125550142'
const OWNERS = ['+13125550171', '+13125550172']

/** The page's marked TwiML blocks, by name. */
export function documentedTwiml(page: string): Map<string, string> {
  const blocks = new Map<string, string>()
  for (const match of page.matchAll(/<!-- twiml: ([a-z-]+) -->\s*```xml\n([\s\S]*?)```/g)) blocks.set(match[1] as string, match[2] as string)
  return blocks
}

const comparable = (twiml: string) => twiml.replace(/>\s+</g, '><').trim()

async function app(t: Test, settings: Record<string, unknown>) {
  const fake = await fakeTwilio(t)
  const built = await dialingApp(t, { fake, clock: manualClock(TUESDAY_11AM) })
  const { token } = await built.createAccount('Acme Plumbing', { callerId: CALLER_ID, leadTimeGuard: false, inboundRing: OWNERS, ...settings })
  await postLead(built.app, token, { phone: JANE, first_name: 'Jane', last_name: 'Doe', source: 'Google Ads' })
  const call = newCallSid()
  const shown = (body: string) => body.split(PUBLIC_URL).join('{base_url}').split(PUBLIC_URL.replace(/^http/, 'ws')).join('{base_url_ws}').split(call).join('CA…')
  const post = async (path: string, params: Record<string, string>) => (await postTwilio(built.app, fake.authToken, path, params)).body
  return { call, shown, post }
}

/** Every flow of the page, as the route answers it. */
async function flows(t: Test): Promise<Map<string, string>> {
  const answers = new Map<string, string>()
  const seq = await app(t, {})
  const voice = await seq.post('voice', voiceParams(seq.call, JANE))
  answers.set('ring', seq.shown(voice))
  const whisper = await seq.post(hookPath(voice, 'voice-whisper'), { CallSid: 'CAleg0', ParentCallSid: seq.call })
  answers.set('whisper', seq.shown(whisper))
  answers.set('declined', seq.shown(await seq.post(hookPath(whisper, 'voice-key'), { CallSid: 'CAleg0', Digits: '2' })))
  const next = await seq.post(hookPath(voice, 'voice-dial'), { CallSid: seq.call, DialCallStatus: 'completed' })
  answers.set('next-owner', seq.shown(next))
  const menu = await seq.post(hookPath(next, 'voice-dial'), { CallSid: seq.call, DialCallStatus: 'no-answer' })
  answers.set('menu', seq.shown(menu))
  answers.set('callback', seq.shown(await seq.post(hookPath(menu, 'voice-menu'), { CallSid: seq.call, Digits: '1' })))

  const vm = await app(t, {})
  const vmVoice = await vm.post('voice', voiceParams(vm.call, JANE))
  const vmNext = await vm.post(hookPath(vmVoice, 'voice-dial'), { CallSid: vm.call, DialCallStatus: 'no-answer' })
  const vmMenu = await vm.post(hookPath(vmNext, 'voice-dial'), { CallSid: vm.call, DialCallStatus: 'no-answer' })
  answers.set('voicemail-saved', vm.shown(await vm.post(hookPath(vmMenu, 'voice-record'), { CallSid: vm.call, RecordingDuration: '17' })))

  const all = await app(t, { inboundRingMode: 'simultaneous' })
  const allVoice = await all.post('voice', voiceParams(all.call, JANE))
  answers.set('ring-simultaneous', all.shown(allVoice))
  answers.set('connect', all.shown(await all.post(`voice-key?call=${all.call}&leg=0`, { CallSid: 'CAleg0', Digits: '1' })))
  answers.set('taken', all.shown(await all.post(`voice-key?call=${all.call}&leg=1`, { CallSid: 'CAleg1', Digits: '1' })))

  const closed = await app(t, { businessHours: 'sat-sun 09:00-17:00', inboundVoicemail: false })
  answers.set('outside-hours', closed.shown(await closed.post('voice', voiceParams(closed.call, JANE))))

  const assistant = await app(t, { businessHours: 'sat-sun 09:00-17:00', onAnswer: 'assistant' })
  answers.set('assistant', assistant.shown(await assistant.post('voice', voiceParams(assistant.call, JANE))))
  return answers
}

t.test('every flow in inbound.md shows the TwiML the route answers', async (t) => {
  const documented = documentedTwiml(readFileSync(new URL('../../docs/inbound.md', import.meta.url), 'utf8'))
  const answered = await flows(t)
  if (process.env.PRINT_TWIML === '1') for (const [name, twiml] of answered) process.stdout.write(`# ${name}\n${twiml}\n`)
  t.same([...documented.keys()].sort(), [...answered.keys()].sort(), 'each flow is on the page, once')
  for (const [name, twiml] of answered) t.equal(comparable(documented.get(name) ?? ''), comparable(twiml), name)
})
