/** `leadline account create|list|show|set|brief`: the operator's view of accounts and their settings. */
import { readFileSync } from 'node:fs'
import type { AssistantBrief } from '../../domain/account/assistant-brief.ts'
import { assistantBooking } from '../../domain/account/assistant-booking.ts'
import type { AccountState } from '../../domain/account/account.decider.ts'
import type { SettingsChange } from '../../domain/account/account-settings.ts'
import { formatReminderOffsets, parseReminderOffsets } from '../../domain/lead/texts/appointment-texts-setting.ts'
import { json, onOff, operator, parse, required, table, UsageError, withLeadline, type Io } from '../cli-io.ts'

function settingsLines(account: AccountState): string {
  const s = account.settings
  return table(
    ['setting', 'value'],
    [
      ['time zone', s.timeZone],
      ['speed to lead', s.speedToLead ? 'on' : 'off'],
      ['calling hours', s.callingHours],
      ['caller id', s.callerId ?? '(not set)'],
      ['default country', s.defaultCountry],
      ['industry', s.industry ?? '(none)'],
      ['lead-time guard', s.leadTimeGuard ? 'on (08:00-21:00 in the lead\'s zone)' : 'off'],
      ['calls per second', String(s.callsPerSecond)],
      ['follow-up', s.followUp],
      ['on answer', s.onAnswer],
      ['machine detection', s.amd ? 'on' : 'off (a voicemail pickup counts as an answer)'],
      ['voicemail', s.voicemail],
      ['voicemail recording', s.voicemailUrl ?? '(none: the voicemail text is spoken)'],
      ['voicemails per day', s.voicemailPerDay === 0 ? '0 (none left)' : String(s.voicemailPerDay)],
      ['stale after', formatMinutes(s.staleAfterMinutes)],
      ['stripe account', s.stripeAccount ?? '(not connected)'],
      ['currency', s.currency],
      ['pay-link text', s.payLinkTemplate],
      ['missed-call text', s.missedCallText ?? 'off (no text-back after a missed call)'],
      ['allowed countries', s.allowedCountries?.join(',') ?? `${s.defaultCountry} (the default country)`],
      ['place_call also', s.placeCallCountries?.join(',') ?? '(no other country)'],
      ['messaging service', s.messagingService ?? '(none: texts go from the bare caller ID and may be filtered by carriers)'],
      ['owner alerts to', s.alertTo ?? '(not set: no alerts)'],
      ['owner alerts', s.alerts.length === 0 ? 'none' : s.alerts.join(',')],
      ['business hours', s.businessHours ?? `${s.callingHours} (the calling hours)`],
      ['inbound ring', s.inboundRing.length === 0 ? '(none: inbound calls go to the assistant or voicemail)' : s.inboundRing.join(',')],
      ['inbound ring mode', s.inboundRingMode],
      ['inbound voicemail', s.inboundVoicemail ? 'on (at most 120 s)' : 'off'],
      ['appointment confirmation', s.appointmentTexts.confirmation ? 'on' : 'off'],
      ['appointment reminders', s.appointmentTexts.remindersMinutesBefore.length === 0 ? 'none' : `${formatReminderOffsets(s.appointmentTexts.remindersMinutesBefore)} before the start`],
      ['google key', account.googleKey === null ? '(not set: Google lead forms are refused)' : `set ${account.googleKey.setAt} (kept as a hash, never shown)`],
      ['field maps', account.fieldMaps.size === 0 ? '(none)' : [...account.fieldMaps.keys()].join(', ')],
      ['assistant brief', `${s.assistantBrief.questions.length} questions (leadline account brief ${account.accountId})`],
    ],
  )
}

/** The voice assistant's brief, shown back as it is kept (docs/assistant.md "The brief"). */
function briefLines(account: AccountState): string {
  const brief = account.settings.assistantBrief
  const booking = assistantBooking(account)
  const rows: string[][] = [
    ['business', brief.business === '' ? '(not described)' : brief.business],
    ...brief.questions.map((q, i) => [`question ${i + 1}`, `${q.question}${q.goodAnswer === '' ? '' : `  (good answer: ${q.goodAnswer})`}`]),
    ['callback windows', brief.callbackWindows ?? '(the calling hours)'],
    ['transfer to', brief.transferNumber ?? '(none: callbacks are offered instead)'],
    ['assistant name', brief.assistantName],
    ['voice', brief.voice ?? "(ConversationRelay's default)"],
    ['language', brief.language],
    ['longest call', `${brief.maxCallMinutes} min`],
    ['calls at once', String(brief.maxConcurrentCalls)],
    ['appointments', booking.on ? `books ${booking.type.name} (${booking.type.id})` : `not booked${booking.problem ? ', fix the setting' : ''}: ${booking.why}`],
  ]
  return table(['brief', 'value'], rows)
}

/** `Question? | what a good answer is` → a brief question. */
function briefQuestion(text: string): { question: string; goodAnswer: string } {
  const [question = '', ...good] = text.split('|')
  return { question: question.trim(), goodAnswer: good.join('|').trim() }
}

function formatMinutes(minutes: number): string {
  if (minutes % (24 * 60) === 0) return `${minutes / (24 * 60)}d`
  if (minutes % 60 === 0) return `${minutes / 60}h`
  return `${minutes}m`
}

/** `90m`, `24h`, `2d` → minutes. */
function parseDuration(value: string, flag: string): number {
  const match = /^(\d{1,5})\s*(m|h|d)$/.exec(value.trim().toLowerCase())
  if (!match) throw new UsageError(`${flag} takes a duration such as 90m, 24h or 2d`)
  return Number(match[1]) * { m: 1, h: 60, d: 24 * 60 }[match[2] as 'm' | 'h' | 'd']
}

/** A whole number given on the command line; the account's own rules check its range. */
function wholeNumber(value: string, flag: string, meaning: string): number {
  if (!/^\s*\d+\s*$/.test(value)) throw new UsageError(`${flag} takes a whole number: ${meaning}`)
  return Number(value)
}

function publicAccount(account: AccountState) {
  return {
    accountId: account.accountId,
    name: account.name,
    createdAt: account.createdAt,
    settings: account.settings,
    webhookToken: account.webhookToken ? { tokenId: account.webhookToken.tokenId, hint: account.webhookToken.hint } : null,
    googleKey: account.googleKey === null ? null : { setAt: account.googleKey.setAt },
    fieldMaps: Object.fromEntries([...account.fieldMaps].map(([source, map]) => [source, { mappings: map.mappings, setAt: map.setAt }])),
  }
}

export async function accountCommand(args: string[], io: Io): Promise<void> {
  const [sub, ...rest] = args
  switch (sub) {
    case 'create': {
      const { values } = parse(rest, { name: { type: 'string' }, timezone: { type: 'string' }, json: { type: 'boolean' } })
      const name = required(values.name, '--name')
      await withLeadline(io, async (leadline, cfg) => {
        const settings = values.timezone === undefined ? {} : { timeZone: values.timezone }
        const { account, webhookToken } = await leadline.accounts.create(name, settings, operator())
        const webhookUrl = `${cfg.publicUrl}/api/ingest/lead`
        if (values.json) {
          io.out(json({ ...publicAccount(account), webhookToken: { tokenId: webhookToken.id, token: webhookToken.secret }, webhookUrl }))
          return
        }
        io.out(
          [
            `account ${account.accountId} created: ${account.name}`,
            `webhook token (shown once, store it now): ${webhookToken.secret}`,
            `webhook URL: ${webhookUrl}`,
            `  send the token in the x-service-token header (or ?token=…): treat it like a password`,
          ].join('\n'),
        )
      })
      return
    }
    case 'list': {
      const { values } = parse(rest, { json: { type: 'boolean' } })
      await withLeadline(io, async (leadline) => {
        const accounts = leadline.accountsQueries.list()
        if (values.json) return io.out(json(accounts))
        io.out(
          accounts.length === 0
            ? 'no accounts yet: leadline account create --name NAME'
            : table(['account', 'name', 'time zone', 'speed to lead', 'created'], accounts.map((a) => [a.accountId, a.name, a.timeZone, a.speedToLead ? 'on' : 'off', a.createdAt])),
        )
      })
      return
    }
    case 'show': {
      const { values, positionals } = parse(rest, { json: { type: 'boolean' } }, true)
      const accountId = required(positionals[0], 'ACCOUNT_ID')
      await withLeadline(io, async (leadline) => {
        const account = await leadline.accounts.require(accountId)
        if (values.json) return io.out(json(publicAccount(account)))
        io.out(`${account.accountId}  ${account.name}  (created ${account.createdAt})\n${settingsLines(account)}`)
      })
      return
    }
    case 'set': {
      const { values, positionals } = parse(
        rest,
        {
          timezone: { type: 'string' },
          'speed-to-lead': { type: 'string' },
          'calling-hours': { type: 'string' },
          'caller-id': { type: 'string' },
          country: { type: 'string' },
          industry: { type: 'string' },
          'lead-time-guard': { type: 'string' },
          cps: { type: 'string' },
          'follow-up': { type: 'string' },
          'on-answer': { type: 'string' },
          amd: { type: 'string' },
          voicemail: { type: 'string' },
          'voicemail-url': { type: 'string' },
          'voicemail-per-day': { type: 'string' },
          'stale-after': { type: 'string' },
          'stripe-account': { type: 'string' },
          currency: { type: 'string' },
          'pay-text': { type: 'string' },
          'missed-call-text': { type: 'string' },
          'allowed-countries': { type: 'string' },
          'place-call-countries': { type: 'string' },
          'messaging-service': { type: 'string' },
          'google-key': { type: 'string' },
          'alert-to': { type: 'string' },
          alerts: { type: 'string' },
          'business-hours': { type: 'string' },
          'inbound-ring': { type: 'string' },
          'inbound-ring-mode': { type: 'string' },
          'inbound-voicemail': { type: 'string' },
          'appointment-confirmation': { type: 'string' },
          'appointment-reminders': { type: 'string' },
          json: { type: 'boolean' },
        },
        true,
      )
      const accountId = required(positionals[0], 'ACCOUNT_ID')
      const changes: { -readonly [K in keyof SettingsChange]: SettingsChange[K] } = {}
      if (values.timezone !== undefined) changes.timeZone = values.timezone
      const speed = onOff(values['speed-to-lead'], '--speed-to-lead')
      if (speed !== undefined) changes.speedToLead = speed
      if (values['calling-hours'] !== undefined) changes.callingHours = values['calling-hours']
      if (values['caller-id'] !== undefined) changes.callerId = values['caller-id'] === 'none' ? null : values['caller-id']
      if (values.country !== undefined) changes.defaultCountry = values.country
      if (values.industry !== undefined) changes.industry = values.industry === 'none' ? null : values.industry
      const guard = onOff(values['lead-time-guard'], '--lead-time-guard')
      if (guard !== undefined) changes.leadTimeGuard = guard
      if (values.cps !== undefined) {
        const cps = Number(values.cps)
        if (!Number.isFinite(cps)) throw new UsageError('--cps takes a number of calls per second, such as 1 or 0.5')
        changes.callsPerSecond = cps
      }
      if (values['follow-up'] !== undefined) changes.followUp = values['follow-up']
      if (values['on-answer'] !== undefined) changes.onAnswer = values['on-answer']
      const amd = onOff(values.amd, '--amd')
      if (amd !== undefined) changes.amd = amd
      if (values.voicemail !== undefined) changes.voicemail = values.voicemail
      const recording = values['voicemail-url']
      if (recording !== undefined) changes.voicemailUrl = recording.trim().toLowerCase() === 'none' ? null : recording.trim()
      if (values['voicemail-per-day'] !== undefined) changes.voicemailPerDay = wholeNumber(values['voicemail-per-day'], '--voicemail-per-day', 'voicemails to one lead in any 24 hours, 0 to 5')
      if (values['stale-after'] !== undefined) changes.staleAfterMinutes = parseDuration(values['stale-after'], '--stale-after')
      if (values['stripe-account'] !== undefined) changes.stripeAccount = values['stripe-account'] === 'none' ? null : values['stripe-account']
      if (values.currency !== undefined) changes.currency = values.currency
      if (values['pay-text'] !== undefined) changes.payLinkTemplate = values['pay-text']
      // `off` is read by the setting's own rules, as every edge reads it.
      if (values['missed-call-text'] !== undefined) changes.missedCallText = values['missed-call-text']
      const allowed = values['allowed-countries']
      if (allowed !== undefined) changes.allowedCountries = allowed.trim().toLowerCase() === 'default' ? null : allowed.split(',')
      const placeCall = values['place-call-countries']
      if (placeCall !== undefined) changes.placeCallCountries = placeCall.trim().toLowerCase() === 'none' ? null : placeCall.split(',')
      const service = values['messaging-service']
      if (service !== undefined) changes.messagingService = ['off', 'none'].includes(service.trim().toLowerCase()) ? null : service.trim()
      if (values['alert-to'] !== undefined) changes.alertTo = values['alert-to'].trim().toLowerCase() === 'none' ? null : values['alert-to'].trim()
      // Read by the settings' own rules (known kinds, none, order), as the console's form is.
      if (values.alerts !== undefined) changes.alerts = values.alerts as unknown as SettingsChange['alerts']
      const business = values['business-hours']
      if (business !== undefined) changes.businessHours = business.trim().toLowerCase() === 'default' ? null : business
      // Read by the settings' own rules (E.164, at most five, none), as the console's form is.
      if (values['inbound-ring'] !== undefined) changes.inboundRing = values['inbound-ring'] as unknown as SettingsChange['inboundRing']
      if (values['inbound-ring-mode'] !== undefined) changes.inboundRingMode = values['inbound-ring-mode'].trim() as SettingsChange['inboundRingMode']
      const inboundVoicemail = onOff(values['inbound-voicemail'], '--inbound-voicemail')
      if (inboundVoicemail !== undefined) changes.inboundVoicemail = inboundVoicemail
      const confirmation = onOff(values['appointment-confirmation'], '--appointment-confirmation')
      const reminderSpec = values['appointment-reminders']
      const reminders = reminderSpec === undefined ? undefined : parseReminderOffsets(reminderSpec)
      if (reminders === null) throw new UsageError('--appointment-reminders takes times before the start such as 24h,1h or 90m, or none')
      const appointmentTexts = confirmation !== undefined || reminders !== undefined
      const googleKey = values['google-key']
      if (Object.keys(changes).length === 0 && googleKey === undefined && !appointmentTexts) throw new UsageError('nothing to set: pass at least one setting (see leadline help)')
      await withLeadline(io, async (leadline) => {
        let account = await leadline.accounts.require(accountId)
        // The setting is kept whole: the part not given stays as it is.
        const current = account.settings.appointmentTexts
        if (appointmentTexts) changes.appointmentTexts = { confirmation: confirmation ?? current.confirmation, remindersMinutesBefore: reminders ?? current.remindersMinutesBefore }
        if (Object.keys(changes).length > 0) account = await leadline.accounts.changeSettings(accountId, changes, operator())
        // The key Google's lead forms send: hashed before it is recorded, never printed back.
        if (googleKey !== undefined) account = await leadline.accounts.setGoogleKey(accountId, googleKey.trim().toLowerCase() === 'none' ? null : googleKey, operator())
        if (values.json) return io.out(json(publicAccount(account)))
        io.out(`account ${account.accountId} updated\n${settingsLines(account)}`)
      })
      return
    }
    case 'brief': {
      const { values, positionals } = parse(
        rest,
        {
          file: { type: 'string' },
          business: { type: 'string' },
          question: { type: 'string', multiple: true },
          'callback-windows': { type: 'string' },
          'transfer-to': { type: 'string' },
          name: { type: 'string' },
          voice: { type: 'string' },
          language: { type: 'string' },
          'max-minutes': { type: 'string' },
          'max-calls': { type: 'string' },
          'appointment-type': { type: 'string' },
          json: { type: 'boolean' },
        },
        true,
      )
      const accountId = required(positionals[0], 'ACCOUNT_ID')
      const none = (value: string) => (value.trim().toLowerCase() === 'none' ? null : value.trim())
      const change: Record<string, unknown> = {}
      if (values.business !== undefined) change.business = values.business
      if (values.question !== undefined) change.questions = values.question.filter((q) => q.trim().toLowerCase() !== 'none').map(briefQuestion)
      if (values['callback-windows'] !== undefined) change.callbackWindows = none(values['callback-windows'])
      if (values['transfer-to'] !== undefined) change.transferNumber = none(values['transfer-to'])
      if (values.name !== undefined) change.assistantName = values.name
      if (values.voice !== undefined) change.voice = none(values.voice)
      if (values.language !== undefined) change.language = values.language.trim()
      if (values['max-minutes'] !== undefined) change.maxCallMinutes = wholeNumber(values['max-minutes'], '--max-minutes', 'the longest call in minutes, 1 to 15')
      if (values['max-calls'] !== undefined) change.maxConcurrentCalls = wholeNumber(values['max-calls'], '--max-calls', 'assistant calls at once, 1 to 50')
      if (values['appointment-type'] !== undefined) change.appointmentTypeId = none(values['appointment-type'])
      let file: Record<string, unknown> | null = null
      if (values.file !== undefined) {
        try {
          file = JSON.parse(readFileSync(values.file, 'utf8')) as Record<string, unknown>
        } catch (error) {
          throw new UsageError(`--file: cannot read a JSON brief from ${values.file}: ${(error as Error).message}`)
        }
      }
      await withLeadline(io, async (leadline) => {
        let account = await leadline.accounts.require(accountId)
        if (file !== null || Object.keys(change).length > 0) {
          // A file replaces the brief; flags change what they name and keep the rest.
          const brief = { ...(file ?? account.settings.assistantBrief), ...change }
          account = await leadline.accounts.changeSettings(accountId, { assistantBrief: brief as unknown as AssistantBrief }, operator())
        }
        if (values.json) return io.out(json(account.settings.assistantBrief))
        io.out(`${account.accountId}  ${account.name}: the assistant's brief (on answer: ${account.settings.onAnswer})\n${briefLines(account)}`)
      })
      return
    }
    default:
      throw new UsageError(`unknown command "account ${sub ?? ''}": use create, list, show, set or brief`)
  }
}
