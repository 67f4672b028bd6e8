/**
 * The one consent classifier (issue #40), as a table of real phrasings both ways: keywords in any
 * spelling (punctuation, spaces, zero-width characters, fullwidth letters around or inside them),
 * plain-language requests to stop contact, and ordinary replies that merely contain the words. The
 * texts and the voice assistant read the same verdict from it. A hostile 100 kB body is classified
 * with patterns of bounded repetition only, so its cost grows with its length, never faster.
 */
import t from 'tap'
import { classifyConsent } from '../../../src/domain/consent/consent-classifier.ts'
import { KEYWORDS, OPT_OUT_PHRASES } from '../../../src/domain/consent/consent-phrases.ts'
import { normalizeMessage } from '../../../src/domain/consent/message-text.ts'

const OPT_OUT = [
  // The FCC's and the carriers' keywords, in every spelling.
  'STOP', 'stop', ' Stop. ', `STOP${'!'.repeat(40)}`, `STOP${' '.repeat(40)}`, `${' '.repeat(40)}STOP${' '.repeat(40)}`, `UNSUBSCRIBE${'!'.repeat(60)}`,
  '...stop...', '"STOP"', 'S\u200dT\u200dO\u200dP', 'S\u200bTOP', '\uFEFFSTOP\u200e', 'ＳＴＯＰ', 'ｓｔｏｐ！！！', 'S.T.O.P', 'S T O P', 'STOP 🛑', '🛑🛑 stop 🛑🛑',
  'Stop\n\n\n', 'STOP\u0000', 'OPT OUT', 'opt-out', 'OptOut', 'STOPALL', 'unsubscribe!', 'Cancel', 'end', 'QUIT', 'revoke', 'Stöp',
  'STOP STOP STOP', 'stop please', 'Please stop', 'STOP NOW', 'stop it', 'Stop, thank you', 'ok stop', 'No. Stop.', 'Stop!!! Now!!!',
  // Plain-language revocation (FCC 24-18: any reasonable means).
  'Please stop texting me', 'Stop calling me', 'stop contacting me', 'Stop messaging me please', 'STOP SENDING ME TEXTS', 'please stop sending me these messages',
  'Quit calling me', 'Can you stop calling me?', 'stop all calls and texts', 'Stop the texts', 'Stop bothering me', 'stop harassing me', 'Stop spamming my phone',
  'Remove me from your list', 'remove me', 'Please remove my number', 'Take me off your list', 'take my number off your list', 'Get me off your list',
  "Don't contact me", "don't call me", 'Do not text this number', 'Do not call me again', 'Please don\u2019t text me anymore', 'Never call me again',
  'Put me on your do not call list', 'Add me to the DNC list', 'wrong number', 'Wrong #', 'You have the wrong person', 'This is not my number',
  'Leave me alone', 'leave us alone!!', 'unsubscribe me', 'How do I unsubscribe?', 'I want to opt out', 'Opt me out', 'no more texts', 'No more calls please',
  'I revoke my consent', 'I withdraw my consent to be contacted', 'I do not consent to these messages', "I don't want any more calls",
  'I never signed up for this', 'I never asked for this', 'Lose my number', 'Stop. I am not interested.', 'Not interested. STOP', 'I already opted out, why are you still texting',
  'no me llame mas', 'PARAR', 'Deja de escribir', 'numero equivocado', 'Fuck off', 'This is harassment', "Don't text me", 'I never filled out a form',
]

const REPLY = [
  'Can you stop by at 5?', "I'll stop in tomorrow", 'The bus stop on Main', "Don't stop now, the quote looks good", 'please don\u2019t stop calling me, I need the roof done',
  'Why did you stop calling me?', 'You never call me back!', "Don't call me before 5pm, I'm at work", "Don't call me now, I'm driving", "don't call me until next week",
  "Don't text, call me instead", 'Yes', 'yes please call me', 'Sure, call me after 5 about the roof', 'Who is this?', 'What is this about?', 'Not now', 'Maybe later',
  'How much for the gutters?', 'Can we end the job by Friday?', 'I want to cancel my appointment', 'Please cancel the Tuesday visit and reschedule', "Let's start on Monday",
  'stop sign on my street', 'The leak won\'t stop', 'The rain stopped, come by', 'Stopping by at 3', 'nonstop rain', 'STOPP', 'I need more info on the quote',
  'Can you help me with my roof?', 'Thanks!', 'ok', 'Call me at 312 555 0142', 'Quote please', "I'll text you the photos", 'Is the offer still on?',
  'My husband will call you', 'Send the invoice to my email', 'Can you remove the old shingles too?', 'Take the old gutters off too', 'I removed the tiles already',
  'What time will you stop by?', "We'll end up needing a new roof", 'the weekend works', 'This is the right number, call anytime', '',
  "Please call, don't text", 'I never asked for a quote on the garage, only the roof', 'the wrong number of shingles', 'Stop sending the invoice to my old email',
]

t.test(`${OPT_OUT.length} opt-outs, in every spelling and in plain language`, async (t) => {
  for (const body of OPT_OUT) t.equal(classifyConsent(body).verdict, 'opt_out', JSON.stringify(body))
})

t.test(`${REPLY.length} ordinary replies that merely contain the words`, async (t) => {
  for (const body of REPLY) t.equal(classifyConsent(body).verdict, 'reply', JSON.stringify(body))
})

t.test('HELP and START, whole or with fillers; opt-out wins over either', async (t) => {
  for (const body of ['help', 'HELP!!!', 'INFO?', 'Help please', 'ｈｅｌｐ', 'H\u200bELP']) t.equal(classifyConsent(body).verdict, 'help', JSON.stringify(body))
  for (const body of ['START', 'unstop', 'Start please']) t.equal(classifyConsent(body).verdict, 'opt_in', JSON.stringify(body))
  for (const body of ['STOP HELP', 'help stop', 'Help, stop texting me', 'start stop']) t.equal(classifyConsent(body).verdict, 'opt_out', JSON.stringify(body))
  t.equal(OPT_OUT.length + REPLY.length >= 80, true, 'at least 80 phrasings in the table')
})

t.test('the verdict says what decided it', async (t) => {
  t.same(classifyConsent(`STOP${'!'.repeat(40)}`), { verdict: 'opt_out', rule: 'keyword:stop' })
  t.same(classifyConsent('Stop. I am not interested.'), { verdict: 'opt_out', rule: 'sentence:stop' })
  t.same(classifyConsent('Please stop texting me'), { verdict: 'opt_out', rule: 'stop_contacting' })
  t.same(classifyConsent('Can you stop by at 5?'), { verdict: 'reply', rule: null })
})

t.test('normalisation: NFKC, invisible characters gone, accents and case folded, punctuation and spaces collapsed', async (t) => {
  t.equal(normalizeMessage('  Ｄｏｎ’t\u200b   CALL—me!!!  '), 'dont call me')
  t.equal(normalizeMessage('S\u0000T\u0007O\u202eP'), 'stop')
  t.equal(normalizeMessage('Stöp\tNOW\r\n'), 'stop now')
})

t.test('every phrase and keyword is data with a cited source and an example it matches', async (t) => {
  for (const row of KEYWORDS) t.match(row.source, /^(fcc-24-18|ctia|carrier)$/)
  for (const phrase of OPT_OUT_PHRASES) {
    t.match(phrase.source, /^(fcc-24-18|ctia|carrier)$/, phrase.id)
    t.equal(classifyConsent(phrase.example).verdict, 'opt_out', `${phrase.id}: ${phrase.example}`)
  }
})

t.test('linear patterns only: no unbounded or nested repetition, so no catastrophic backtracking', async (t) => {
  const sources = OPT_OUT_PHRASES.flatMap((phrase) => [phrase.pattern, phrase.unlessBefore, phrase.unlessAfter]).filter((p): p is RegExp => p !== undefined)
  for (const pattern of sources) {
    const source = pattern.source.replace(/\\./g, '')
    t.notMatch(source, /[*+]|\{\d+,\}/, `no *, + or {n,} in ${pattern.source.slice(0, 60)}…`)
    // A bounded group inside another bounded group multiplies the work per position: none is nested.
    t.notMatch(source, /\([^()]*\([^()]*\)\{[^}]*\}[^()]*\)\{/, `no nested repetition in ${pattern.source.slice(0, 60)}…`)
  }
})

t.test('a 100 kB hostile body is classified, and right', async (t) => {
  const kb100 = 100_000
  t.equal(classifyConsent(`STOP${'!'.repeat(kb100)}`).verdict, 'opt_out')
  t.equal(classifyConsent(`${' '.repeat(kb100)}UNSUBSCRIBE${'\u200d'.repeat(kb100)}`).verdict, 'opt_out')
  t.equal(classifyConsent('stop '.repeat(kb100 / 5)).verdict, 'opt_out')
  t.equal(classifyConsent(`${'please dont '.repeat(kb100 / 12)}stop calling me`).verdict, 'reply')
  t.equal(classifyConsent(`${'stop by '.repeat(kb100 / 8)}please stop texting me`).verdict, 'opt_out')
  t.equal(classifyConsent('stop sending the '.repeat(kb100 / 17)).verdict, 'reply')
  t.equal(classifyConsent('a!'.repeat(kb100 / 2)).verdict, 'reply')
  t.equal(classifyConsent(`${'x '.repeat(kb100 / 2)}wrong number`).verdict, 'opt_out')
})
