/**
 * `leadline demo`: speed to lead in one command, on the embedded store and the simulated carrier.
 * Creates a demo account (or uses --account), pushes five leads one after another and plays each
 * path a real lead takes (answered, voicemail, pressed 1, replied by text, texted STOP), then prints
 * what happened to each, read back from the log, with the console URL to see them.
 */
import { leadStream } from '../../domain/lead/lead.events.ts'
import { config, json, operator, parse, table, UsageError, type Io } from '../cli-io.ts'
import type { Leadline } from '../../leadline.ts'

/** The demo's caller ID: a fictional number (555-01xx are reserved for fiction). */
const DEMO_CALLER_ID = '+13125550100'
const DEMO_SETTINGS = { callerId: DEMO_CALLER_ID, callingHours: 'mon-sun 00:00-24:00', leadTimeGuard: false, speedToLead: true }
/** Seed of the simulated answers that plays, in order: a person who listens, a machine, a person who presses 1. */
const DEMO_SEED = 24
const DEMO_DELAY_MS = 200
const WAIT_PER_LEAD_MS = 5000

interface DemoLead {
  readonly name: string
  readonly phone: string
  /** What the lead does after the call: text back, or nothing. */
  readonly texts?: string
}

const LEADS: readonly DemoLead[] = [
  { name: 'Jane Doe', phone: '+13125550142' },
  { name: 'Sam Lee', phone: '+13125550143' },
  { name: 'Ana Diaz', phone: '+13125550144' },
  { name: 'Raj Patel', phone: '+13125550145', texts: 'Yes, call me after 5 please' },
  { name: 'Kim Moss', phone: '+13125550146', texts: 'STOP' },
]

/** The call is over, whichever way it went. */
const CALL_ENDED = new Set(['CallCompleted', 'CallNotAnswered', 'CallFailed', 'CallOutcomeUnknown', 'SpeedToLeadSkipped'])

async function leadEvents(leadline: Leadline, accountId: string, phone: string) {
  return leadline.store.readStream(leadStream(accountId, phone.slice(-10)))
}

/** What happened to a lead, in the words of the issue: called, answered, voicemail left, pressed 1, replied by text, opted out. */
function outcome(events: ReadonlyArray<{ type: string; data: unknown }>): string[] {
  const said: string[] = []
  for (const { type, data } of events) {
    const d = data as Record<string, unknown>
    if (type === 'CallPlaced' && !said.includes('called')) said.push('called')
    else if (type === 'CallAnswered' && d.answeredBy !== 'machine_end_beep' && !said.includes('answered')) said.push('answered')
    else if (type === 'CallNotAnswered' && !said.includes('a machine answered')) said.push(`not answered (${String(d.status)})`)
    else if (type === 'CallReachedMachine') said.push('a machine answered')
    else if (type === 'VoicemailLeft') said.push('voicemail left')
    else if (type === 'MenuKeyPressed') said.push(`pressed ${String(d.digit)}${d.choice === 'connect' ? ' (connect me now)' : d.choice === 'callback' ? ' (call me later)' : ''}`)
    else if (type === 'LeadReplied') said.push('replied by text')
    else if (type === 'LeadMarkedDoNotCall') said.push('opted out (do-not-call)')
    else if (type === 'TextReplySent') said.push('opt-out confirmed by text')
    else if (type === 'SpeedToLeadSkipped') said.push(`not called: ${String(d.reason)}`)
  }
  return said
}

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

export async function demoCommand(args: string[], io: Io): Promise<void> {
  const { values } = parse(args, { account: { type: 'string' }, json: { type: 'boolean' } })
  const cfg = config(io)
  if (!cfg.store.startsWith('sqlite:')) throw new UsageError('leadline demo runs on the embedded store (LEADLINE_STORE=sqlite:…), not on EventStoreDB')
  if (io.env.TWILIO_ACCOUNT_SID || io.env.TWILIO_AUTH_TOKEN) throw new UsageError('leadline demo runs on the simulated carrier: unset TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN (it would call real phones)')
  const { openLeadline } = await import('../../leadline.ts')
  const { createSimulatedCarrier } = await import('../../integrations/carrier/simulated/index.ts')
  const leadline = await openLeadline({
    store: cfg.store,
    viewsPath: cfg.viewsPath,
    publicUrl: cfg.publicUrl,
    env: io.env,
    // Its own simulated carrier, seeded, so every run plays the same five paths.
    carrier: () => createSimulatedCarrier({
      outcome: 'answered',
      answers: { answers: [{ name: 'human', weight: 1 }, { name: 'machine', weight: 1 }], keys: [{ name: '1', weight: 1 }, { name: 'none', weight: 1 }], seed: DEMO_SEED },
      delayMs: DEMO_DELAY_MS,
      onError: () => undefined,
    }),
  })
  try {
    await leadline.prepare()
    await leadline.start()
    const context = operator()
    let accountId = values.account
    if (accountId === undefined) {
      accountId = (await leadline.accounts.create(`Demo ${new Date().toISOString().slice(0, 16).replace('T', ' ')}`, DEMO_SETTINGS, context)).account.accountId
    } else {
      await leadline.accounts.require(accountId)
    }
    const { receiveLead } = await import('../../commands/receive-lead.command.ts')
    const rows: Array<{ name: string; phone: string; leadId: string; happened: string[] }> = []
    for (const lead of LEADS) {
      const account = await leadline.accounts.require(accountId)
      const received = await receiveLead(leadline, account, { name: lead.name, phone: lead.phone, source: 'leadline demo' }, context)
      // One at a time: the simulated answers are drawn in the order calls are placed. A lead already
      // there (a second demo on one account) is updated, not called again: nothing to wait for.
      if (received.created) await waitFor(async () => (await leadEvents(leadline, accountId, lead.phone)).some((e) => CALL_ENDED.has(e.type)), WAIT_PER_LEAD_MS)
      if (lead.texts !== undefined) {
        await leadline.callReports.recordInboundText({ messageId: `SMdemo${received.leadId}`, from: lead.phone, to: account.settings.callerId ?? DEMO_CALLER_ID, body: lead.texts, receivedAt: leadline.clock() })
      }
      rows.push({ name: lead.name, phone: lead.phone, leadId: received.leadId, happened: [] })
    }
    // The last reports (voicemail, the opt-out's confirmation) settle a moment after the call ends.
    await waitFor(async () => (await leadEvents(leadline, accountId, LEADS[1]!.phone)).some((e) => e.type === 'VoicemailLeft' || e.type === 'VoicemailFailed'), 2000)
    for (const row of rows) row.happened = outcome(await leadEvents(leadline, accountId, row.phone))
    const consoleUrl = `${cfg.publicUrl}/app/leads`
    if (values.json) return io.out(json({ accountId, consoleUrl, leads: rows }))
    io.out([
      `demo account ${accountId} (simulated carrier: no real phone was called or texted)`,
      '',
      table(['lead', 'name', 'phone', 'what happened'], rows.map((r) => [r.leadId, r.name, r.phone, r.happened.join(', ')])),
      '',
      `see them in the console: ${consoleUrl} (an owner signs in: leadline user create --account ${accountId} --email you@example.com)`,
    ].join('\n'))
  } finally {
    await leadline.close()
  }
}
