/** `get_stats` (read, issue #44): the Reports page's figures for a period, so an agent can say how last week went. */
import { z } from 'zod'
import { DateTime } from 'luxon'
import { REPORT_PERIODS, reportPeriod, type Period, type ReportFigures } from '../../../../projections/reports/reports.queries.ts'
import { money } from '../../../domain/shared/printable.ts'
import { RPC_CODES, RpcError } from '../json-rpc.ts'
import { defineTool } from '../tool.ts'

/** The longest period asked for by dates: the read model keeps every day, but a year is the most one answer carries. */
export const MAX_STATS_DAYS = 366

const rate = z.number().nullable()
const funnel = {
  leads: z.number().int(),
  called: z.number().int(),
  reached: z.number().int(),
  connected: z.number().int(),
  callback_booked: z.number().int(),
  qualified: z.number().int(),
  paid: z.number().int(),
  contact_rate: rate.describe('reached ÷ leads, 0 to 1; null with no leads'),
  speed_to_lead_median_seconds: z.number().int().nullable(),
  speed_to_lead_p90_seconds: z.number().int().nullable(),
}

function invalid(message: string): never {
  throw new RpcError(RPC_CODES.invalidParams, 'invalid_arguments', message, { problems: [{ path: '', message }] })
}

function period(args: { days?: number | undefined; from?: string | undefined; to?: string | undefined }, zone: string, now: Date): Period {
  if (args.from === undefined && args.to === undefined) return reportPeriod(args.days ?? 7, zone, now)
  if (args.days !== undefined || args.from === undefined || args.to === undefined) invalid('give either days, or both from and to')
  const from = DateTime.fromISO(args.from, { zone })
  const to = DateTime.fromISO(args.to, { zone })
  if (!from.isValid || !to.isValid) invalid('from and to are dates: YYYY-MM-DD')
  const length = to.diff(from, 'days').days + 1
  if (length < 1) invalid('from is after to')
  if (length > MAX_STATS_DAYS) invalid(`a period is at most ${MAX_STATS_DAYS} days`)
  return { from: args.from, to: args.to }
}

function counts(c: ReportFigures['totals'] | ReportFigures['days'][number]) {
  return {
    leads: c.leads, called: c.called, reached: c.reached, connected: c.connected, callback_booked: c.callback, qualified: c.qualified, paid: c.paid,
    contact_rate: c.contactRate, speed_to_lead_median_seconds: c.speedMedianSeconds, speed_to_lead_p90_seconds: c.speedP90Seconds,
  }
}

/** One sentence an agent can repeat. */
function summary(f: ReportFigures, zone: string): string {
  const t = f.totals
  const reached = t.contactRate === null ? `${t.reached} reached` : `${t.reached} reached (${(t.contactRate * 100).toFixed(1)} %)`
  const speed = t.speedMedianSeconds === null ? 'no lead called' : `speed to lead median ${t.speedMedianSeconds} s (p90 ${t.speedP90Seconds} s)`
  const paid = f.payments.totals.length === 0 ? 'no payment collected' : `collected ${f.payments.totals.map((p) => money(p.amountCents, p.currency)).join(', ')}`
  return `${f.period.from} to ${f.period.to} (${zone}): ${t.leads} leads, ${reached}, ${t.connected} connected, ${t.qualified} qualified, ${t.paid} paid; ${speed}; ${paid}.`
}

export const tool = defineTool({
  name: 'get_stats',
  title: 'Stats',
  summary: "The Reports page's figures for a period: leads, contact rate, speed to lead, funnel, when to call, payments",
  description: `How the account did over a period: the same figures as the console's Reports page, read from read models kept as events arrive. Give days (${REPORT_PERIODS.join(', ')}: the last that many days in the account's zone, today included; default 7) or from and to (YYYY-MM-DD in the account's zone, at most ${MAX_STATS_DAYS} days). Returns a one-line summary; totals (leads that arrived, how many were called, reached by a person, connected to the owner or the assistant, booked a callback, qualified, paid; the contact rate; speed to lead's median and 90th percentile in seconds); the same per day and the contact rate per source; speed to lead's distribution; the answer rate by the lead's local weekday (1 Monday to 7 Sunday) and hour for the hours with calls; and payments collected per day and currency. Leads count on the day they arrived, in the account's zone. Use it for "how did last week go?"; docs/reports.md defines every figure.`,
  scope: 'read',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: {
    days: z.union([z.literal(7), z.literal(30), z.literal(90)]).optional().describe('The last 7, 30 or 90 days, today included (default 7 when from and to are absent)'),
    from: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional().describe("First day, YYYY-MM-DD in the account's zone (with to)"),
    to: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional().describe("Last day, YYYY-MM-DD in the account's zone, included (with from)"),
  },
  output: z.object({
    summary: z.string(),
    period: z.object({ from: z.string(), to: z.string(), days: z.number().int(), time_zone: z.string() }),
    totals: z.object(funnel),
    days: z.array(z.object({ day: z.string(), ...funnel })),
    sources: z.array(z.object({ source: z.string().describe("'' for leads that came with no source"), leads: z.number().int(), reached: z.number().int(), contact_rate: rate })),
    speed_to_lead_distribution: z.array(z.object({ label: z.string(), from_seconds: z.number().int(), to_seconds: z.number().int().nullable(), leads: z.number().int() })),
    answer_rate: z.array(z.object({ weekday: z.number().int(), hour: z.number().int(), calls: z.number().int(), answered: z.number().int(), answer_rate: rate })),
    payments: z.object({
      days: z.array(z.object({ day: z.string(), currency: z.string(), payments: z.number().int(), amount_cents: z.number().int() })),
      totals: z.array(z.object({ currency: z.string(), payments: z.number().int(), amount_cents: z.number().int() })),
    }),
  }),
  async run(args, context) {
    const zone = context.account.settings.timeZone
    const f = context.services.reports.figures(context.account.accountId, period(args, zone, context.services.clock()))
    return {
      summary: summary(f, zone),
      period: { from: f.period.from, to: f.period.to, days: f.days.length, time_zone: zone },
      totals: counts(f.totals),
      days: f.days.map((d) => ({ day: d.day, ...counts(d) })),
      sources: f.sources.map((s) => ({ source: s.source, leads: s.leads, reached: s.reached, contact_rate: s.contactRate })),
      speed_to_lead_distribution: f.speedDistribution.map((b) => ({ label: b.label, from_seconds: b.fromSeconds, to_seconds: b.toSeconds, leads: b.leads })),
      answer_rate: f.answerRate.filter((c) => c.calls > 0 || c.answered > 0).map((c) => ({ weekday: c.weekday, hour: c.hour, calls: c.calls, answered: c.answered, answer_rate: c.answerRate })),
      payments: {
        days: f.payments.days.map((p) => ({ day: p.day, currency: p.currency, payments: p.payments, amount_cents: p.amountCents })),
        totals: f.payments.totals.map((p) => ({ currency: p.currency, payments: p.payments, amount_cents: p.amountCents })),
      },
    }
  },
})
