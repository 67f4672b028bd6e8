/**
 * The owner's cockpit (issue #44) on a seeded book: the real app with the REAL Twilio adapter pointed at
 * the fake, a clock the test moves, an account whose owner phone is its bridge number (not agent-first:
 * click-to-call must ring the owner first all the same), and an owner signed in through the console.
 *
 * The book, received at 10:00 Chicago time, seen 20 minutes later:
 * - Ann Able: new, nobody reached her yet (never contacted);
 * - Ben Baker: texted back (a reply, unread);
 * - Cara Cole: do-not-call (the source said so);
 * - Dan Dunn: texted STOP (an opt-out keyword: do-not-call, suppressed, not in the queue).
 */
import type { Test } from 'tap'
import { DIALING, dialingApp, fakeTwilio, manualClock, type ManualClock } from '../../helpers/dialing-app.ts'
import { inboundText } from '../../helpers/inbound-text.ts'
import type { TestApp } from '../../helpers/build-app.ts'
import type { FakeTwilio } from '../../doubles/fake-twilio.ts'
import { Browser, ownerWithPassword } from './console-helpers.ts'

export const OWNER_PHONE = '+13125550177'
export const START = '2026-03-10T15:00:00.000Z'
export const BEN_TEXT = "Can you call me after 5? I'm at work <b>now</b>"
export const PEOPLE = {
  ann: { name: 'Ann Able', phone: '+17735550101' },
  ben: { name: 'Ben Baker', phone: '+17735550102' },
  cara: { name: 'Cara Cole', phone: '+17735550103' },
  dan: { name: 'Dan Dunn', phone: '+17735550104' },
} as const

export interface Cockpit {
  readonly built: TestApp
  readonly fake: FakeTwilio
  readonly clock: ManualClock
  readonly accountId: string
  readonly token: string
  readonly browser: Browser
  readonly baseUrl: string
  /** Lead ids by person. */
  readonly ids: Record<keyof typeof PEOPLE, string>
}

export async function cockpit(t: Test, options: { store?: 'memory' | 'sqlite' } = {}): Promise<Cockpit> {
  const fake = await fakeTwilio(t)
  const clock = manualClock(START)
  const built = await dialingApp(t, { fake, clock, ...(options.store ? { store: options.store } : {}) })
  const baseUrl = await built.listen()
  const { account, token } = await built.createAccount('Acme Roofing', {
    ...DIALING, speedToLead: false, callsPerSecond: 100, timeZone: 'America/Chicago', onAnswer: `greeting+bridge:${OWNER_PHONE}`,
  })
  const email = `owner-${account.accountId}@example.com`
  await ownerWithPassword(built, account.accountId, email)
  const browser = new Browser(built)
  const signed = await browser.signIn(email)
  if (signed.statusCode !== 303) throw new Error(`sign-in failed: ${signed.statusCode}`)
  const ids = {} as Record<keyof typeof PEOPLE, string>
  for (const [key, person] of Object.entries(PEOPLE) as Array<[keyof typeof PEOPLE, (typeof PEOPLE)[keyof typeof PEOPLE]]>) {
    const response = await built.app.inject({
      method: 'POST', url: '/api/ingest/lead', headers: { 'x-service-token': token }, payload: { name: person.name, phone: person.phone, source: 'Spring promo', state: 'IL', ...(key === 'cara' ? { dnc: 'yes' } : {}) },
    })
    if (response.statusCode >= 300) throw new Error(response.body)
    ids[key] = (response.json() as { leadId: string }).leadId
  }
  clock.advance(5 * 60_000)
  if ((await inboundText(built.app, fake, BEN_TEXT, { from: PEOPLE.ben.phone })) !== 200) throw new Error('the text was not taken')
  if ((await inboundText(built.app, fake, 'STOP', { from: PEOPLE.dan.phone })) !== 200) throw new Error('the text was not taken')
  clock.advance(15 * 60_000)
  await built.leadline.runner.catchUp()
  return { built, fake, clock, accountId: account.accountId, token, browser, baseUrl, ids }
}

/** The names of the queue's leads, in order. */
export function queueNames(body: string): string[] {
  return [...body.matchAll(/<h2><a href="\/app\/leads\/ld_[0-9a-z]+">([^<]*)<\/a><\/h2>/g)].map((m) => m[1] as string)
}

/** The names in a leads list page, in order. */
export function listNames(body: string): string[] {
  return [...body.matchAll(/<td><a href="\/app\/leads\/ld_[0-9a-z]+">([^<]*)<\/a><\/td>/g)].map((m) => m[1] as string)
}

/** The idempotency key of the form that posts to `action`. */
export function formKey(body: string, action: string): string {
  const form = body.slice(body.indexOf(`action="${action}"`))
  const key = /name="idempotency_key" value="([^"]+)"/.exec(form)?.[1]
  if (!key) throw new Error(`no form posting to ${action}`)
  return key
}
