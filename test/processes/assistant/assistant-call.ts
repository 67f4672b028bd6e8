/**
 * An assistant call for the engine's tests: an account whose calls go to the assistant, a lead rung
 * by speed to lead through the simulated carrier, and the call's start as the ConversationRelay route
 * would pass it. Also drains a turn's relay output into its text and its end.
 */
import type { Test } from 'tap'
import { buildApp, type TestApp } from '../../helpers/build-app.ts'
import { DIALING, postLead, waitFor } from '../../helpers/dialing-app.ts'
import type { ConversationStart, RelayOutput } from '../../../src/processes/assistant/conversation.ts'
import { leadStream } from '../../../src/domain/lead/lead.events.ts'
import type { LeadlineOptions } from '../../../src/leadline.ts'

export const BRIEF = {
  business: 'Lakeside Roofing repairs and replaces roofs in Chicago.',
  questions: [
    { question: 'Do you own the home?', goodAnswer: 'yes' },
    { question: 'What is wrong with the roof?', goodAnswer: 'a leak or storm damage' },
  ],
  transferNumber: '+13125550177',
  assistantName: 'Robin',
  leadFields: ['roof_age'],
}

export interface AssistantCall {
  readonly t: TestApp
  readonly accountId: string
  readonly phone: string
  readonly start: ConversationStart
  /** The account's webhook token (more leads). */
  readonly token: string
}

export async function assistantCall(
  t: Test,
  options: {
    brief?: Record<string, unknown>; settings?: Record<string, unknown>; provider?: LeadlineOptions['assistantProvider']; turnTimeoutMs?: number; phone?: string; clock?: () => Date
    /** More fields on the lead the webhook receives. */
    fields?: Record<string, string>
  } = {},
): Promise<AssistantCall> {
  const app = await buildApp(t, {
    // The simulated carrier never plays the call (its own simulated caller would talk to the assistant too): the test is the caller.
    env: { LEADLINE_SIMULATED_DELAY_MS: '600000' },
    ...(options.provider ? { assistantProvider: options.provider } : {}),
    ...(options.turnTimeoutMs !== undefined ? { assistantTurnTimeoutMs: options.turnTimeoutMs } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  })
  const { account, token } = await app.createAccount('Lakeside Roofing', {
    ...DIALING, onAnswer: 'assistant', timeZone: 'America/Chicago', assistantBrief: options.brief ?? BRIEF, ...options.settings,
  })
  const phone = options.phone ?? '+13125550142'
  const posted = await postLead(app.app, token, { phone, first_name: 'Dana', last_name: 'Reyes', source: 'roof-form', roof_age: '20 years', card_number: '4242424242424242', ...options.fields })
  t.equal(posted.status, 201)
  const call = await waitFor('the call placed', async () => {
    await app.leadline.runner.catchUp()
    return app.leadline.calls.forStream(leadStream(account.accountId, phone.slice(-10))).find((row) => row.callId !== null)
  })
  return { t: app, accountId: account.accountId, phone, token, start: { accountId: account.accountId, decisionId: call.decisionId, callSid: call.callId as string } }
}

/** A turn's output: the text said, whether it ended with `last: true`, and the end (if the call ends). */
export async function drain(outputs: AsyncIterable<RelayOutput>): Promise<{ text: string; last: boolean; end: Extract<RelayOutput, { type: 'end' }> | null; tokens: number }> {
  let text = ''
  let last = false
  let end: Extract<RelayOutput, { type: 'end' }> | null = null
  let tokens = 0
  for await (const out of outputs) {
    if (out.type === 'text') {
      text += out.token
      last = out.last
      tokens++
    } else end = out
  }
  return { text, last, end, tokens }
}
