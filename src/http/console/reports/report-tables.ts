/**
 * The Reports page's figures as tables, each with its chart: the one shape the page shows, the CSV
 * downloads and the browser tests count. A chart is drawn from the same numbers its table prints,
 * and a CSV is its table's cells, so what is read, seen and downloaded cannot disagree.
 */
import { DateTime } from 'luxon'
import type { ReportFigures } from '../../../../projections/reports/reports.queries.ts'
import { money } from '../../../domain/shared/printable.ts'
import type { Html } from '../html.ts'
import { barChart, heatMap } from './svg-charts.ts'

export interface ReportTable {
  /** The figure's id: its section's anchor and its CSV's name. */
  readonly id: string
  readonly title: string
  /** One line under the title: what the figure counts (docs/reports.md has the long form). */
  readonly about: string
  readonly columns: readonly string[]
  readonly rows: ReadonlyArray<readonly string[]>
  /** Drawn when shown: a CSV download needs only the rows. */
  readonly chart: () => Html
}

export const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const

/** A share as a percentage to one decimal (`40.0`); empty for no data, which is not zero. */
export function percent(rate: number | null): string {
  return rate === null ? '' : (rate * 100).toFixed(1)
}

const count = (n: number | null) => (n === null ? '' : String(n))
const dayLabel = (day: string) => DateTime.fromISO(day).setLocale('en-US').toFormat('ccc d LLL')
const seconds = (v: number) => `${Math.round(v)} s`
const pct = (v: number) => `${Math.round(v)} %`

/** Every figure of the report, in the page's order. */
export function reportTables(f: ReportFigures): ReportTable[] {
  const days = f.days.map((d) => dayLabel(d.day))
  const stages: Array<[string, number]> = [
    ['New', f.totals.leads], ['Called', f.totals.called], ['Reached', f.totals.reached], ['Connected', f.totals.connected],
    ['Callback booked', f.totals.callback], ['Qualified', f.totals.qualified], ['Paid', f.totals.paid],
  ]
  const tried = f.answerRate.filter((c) => c.calls > 0 || c.answered > 0)
  const grid = WEEKDAYS.map((_, w) => f.answerRate.filter((c) => c.weekday === w + 1).map((c) => c.answerRate))
  return [
    {
      id: 'speed-to-lead',
      title: 'Speed to lead per day',
      about: 'Time from a lead arriving to its phone first ringing, for the leads that arrived that day and were called: the median and the 90th percentile.',
      columns: ['Day', 'Leads called', 'Median (s)', 'p90 (s)'],
      rows: f.days.map((d) => [d.day, String(d.called), count(d.speedMedianSeconds), count(d.speedP90Seconds)]),
      chart: () => barChart({ labels: days, series: [{ name: 'Median', values: f.days.map((d) => d.speedMedianSeconds) }, { name: 'p90', values: f.days.map((d) => d.speedP90Seconds) }], format: seconds }),
    },
    {
      id: 'speed-distribution',
      title: 'Speed to lead: distribution',
      about: 'How many of the period\'s called leads were first rung within each time.',
      columns: ['Time to first call', 'Leads'],
      rows: f.speedDistribution.map((b) => [b.label, String(b.leads)]),
      chart: () => barChart({ labels: f.speedDistribution.map((b) => b.label), series: [{ name: 'Leads', values: f.speedDistribution.map((b) => b.leads) }], format: String }),
    },
    {
      id: 'contact-rate-by-day',
      title: 'Contact rate per day',
      about: 'Leads reached by a person ÷ leads, by the day the lead arrived.',
      columns: ['Day', 'Leads', 'Reached', 'Contact rate (%)'],
      rows: f.days.map((d) => [d.day, String(d.leads), String(d.reached), percent(d.contactRate)]),
      chart: () => barChart({ labels: days, series: [{ name: 'Contact rate', values: f.days.map((d) => (d.contactRate === null ? null : d.contactRate * 100)) }], format: pct, max: 100 }),
    },
    {
      id: 'contact-rate-by-source',
      title: 'Contact rate by source',
      about: 'Leads reached by a person ÷ leads, by the source the lead came with.',
      columns: ['Source', 'Leads', 'Reached', 'Contact rate (%)'],
      rows: f.sources.map((s) => [s.source === '' ? '(no source)' : s.source, String(s.leads), String(s.reached), percent(s.contactRate)]),
      chart: () => barChart({ labels: f.sources.map((s) => (s.source === '' ? '(none)' : s.source)), series: [{ name: 'Contact rate', values: f.sources.map((s) => (s.contactRate === null ? null : s.contactRate * 100)) }], format: pct, max: 100 }),
    },
    {
      id: 'funnel',
      title: 'Funnel',
      about: 'Of the leads that arrived in the period, how many got to each stage.',
      columns: ['Stage', 'Leads', 'Of new (%)'],
      rows: stages.map(([stage, n]) => [stage, String(n), percent(f.totals.leads === 0 ? null : n / f.totals.leads)]),
      chart: () => barChart({ labels: stages.map(([stage]) => stage), series: [{ name: 'Leads', values: stages.map(([, n]) => n) }], format: String }),
    },
    {
      id: 'answer-rate',
      title: 'Answer rate by the lead\'s local hour (when to call)',
      about: 'Calls that rang a lead and a person answered ÷ calls that rang a lead, by weekday and hour on the lead\'s own clock. Darker is better; an empty cell had no calls. The table lists the hours with calls.',
      columns: ['Weekday', 'Hour', 'Calls', 'Answered', 'Answer rate (%)'],
      rows: tried.map((c) => [WEEKDAYS[c.weekday - 1] as string, `${String(c.hour).padStart(2, '0')}:00`, String(c.calls), String(c.answered), percent(c.answerRate)]),
      chart: () => heatMap({ rowLabels: WEEKDAYS, columnLabels: Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0')), cells: grid }),
    },
    {
      id: 'payments',
      title: 'Payments collected',
      about: 'Payments settled through pay-links, by the day they settled.',
      columns: ['Day', 'Payments', 'Amount'],
      rows: f.payments.days.map((p) => [p.day, String(p.payments), money(p.amountCents, p.currency)]),
      chart: () => paymentsChart(f, days),
    },
  ]
}

/** Each day's settled amount in the period's main currency (the one with most payments); other currencies are in the table. */
function paymentsChart(f: ReportFigures, days: readonly string[]): Html {
  const main = [...f.payments.totals].sort((a, b) => b.payments - a.payments)[0]?.currency ?? 'usd'
  const cents = f.days.map((d) => f.payments.days.filter((p) => p.day === d.day && p.currency === main).reduce((sum, p) => sum + p.amountCents, 0))
  return barChart({ labels: days, series: [{ name: 'Amount', values: cents }], format: (v) => money(Math.round(v), main) })
}
