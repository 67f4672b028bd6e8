/**
 * The report's figures for a period of days, read from the reports read model's buckets: a query
 * per table over at most the period's days, never over the leads themselves. docs/reports.md says
 * what each figure counts.
 */
import type { ViewsDatabase } from '../../src/read-models/views-database.ts'
import { statement } from '../../src/read-models/statement-cache.ts'
import { nearestRank, type Counted } from './nearest-rank.ts'
import { localSlot } from './local-slot.ts'

/** The periods the Reports page and get_stats offer, in days. */
export const REPORT_PERIODS = [7, 30, 90] as const
export type ReportDays = (typeof REPORT_PERIODS)[number]

/** A period: local days `from` to `to` inclusive (`YYYY-MM-DD` in the account's zone). */
export interface Period {
  readonly from: string
  readonly to: string
}

export interface FunnelCounts {
  readonly leads: number
  readonly called: number
  readonly reached: number
  readonly connected: number
  readonly callback: number
  readonly qualified: number
  readonly paid: number
}

export interface DayFigures extends FunnelCounts {
  readonly day: string
  /** Reached ÷ leads, 0 to 1; null with no leads. */
  readonly contactRate: number | null
  readonly speedMedianSeconds: number | null
  readonly speedP90Seconds: number | null
}

export interface SourceFigures {
  /** '' for leads that came with no source. */
  readonly source: string
  readonly leads: number
  readonly reached: number
  readonly contactRate: number | null
}

export interface SpeedBucket {
  readonly label: string
  /** Seconds, inclusive. */
  readonly fromSeconds: number
  /** Seconds, exclusive; null for the last, open bucket. */
  readonly toSeconds: number | null
  readonly leads: number
}

export interface HourCell {
  /** 1 (Monday) to 7 (Sunday). */
  readonly weekday: number
  readonly hour: number
  readonly calls: number
  readonly answered: number
  readonly answerRate: number | null
}

export interface PaymentDay {
  readonly day: string
  readonly currency: string
  readonly payments: number
  readonly amountCents: number
}

export interface ReportFigures {
  readonly period: Period
  readonly totals: FunnelCounts & {
    readonly contactRate: number | null
    readonly speedMedianSeconds: number | null
    readonly speedP90Seconds: number | null
  }
  /** Every day of the period, oldest first, zeros included. */
  readonly days: DayFigures[]
  /** Sources with leads in the period, most leads first. */
  readonly sources: SourceFigures[]
  readonly speedDistribution: SpeedBucket[]
  /** All 7 × 24 cells, Monday 00:00 first. */
  readonly answerRate: HourCell[]
  /** Days with a settled payment, oldest first, and the totals per currency. */
  readonly payments: { readonly days: PaymentDay[]; readonly totals: Array<{ currency: string; payments: number; amountCents: number }> }
}

/** Speed to lead's distribution: the buckets' lower bounds in seconds, each up to the next. */
export const SPEED_BUCKETS: ReadonlyArray<{ from: number; label: string }> = [
  { from: 0, label: 'under 30 s' },
  { from: 30, label: '30 s to 1 min' },
  { from: 60, label: '1 to 2 min' },
  { from: 120, label: '2 to 5 min' },
  { from: 300, label: '5 to 15 min' },
  { from: 900, label: '15 to 60 min' },
  { from: 3600, label: '1 to 4 h' },
  { from: 14_400, label: '4 to 24 h' },
  { from: 86_400, label: 'a day or more' },
]

const rate = (part: number, whole: number): number | null => (whole === 0 ? null : part / whole)

/** The last `days` days in `zone`, today (as of `now`) included. */
export function reportPeriod(days: number, zone: string, now: Date): Period {
  const today = localSlot(now.toISOString(), zone)?.day ?? now.toISOString().slice(0, 10)
  const from = new Date(Date.parse(`${today}T00:00:00Z`) - (days - 1) * 86_400_000).toISOString().slice(0, 10)
  return { from, to: today }
}

/** The local days from `from` to `to`, inclusive. */
export function daysOf(period: Period): string[] {
  const days: string[] = []
  for (let t = Date.parse(`${period.from}T00:00:00Z`), end = Date.parse(`${period.to}T00:00:00Z`); t <= end; t += 86_400_000) {
    days.push(new Date(t).toISOString().slice(0, 10))
  }
  return days
}

const EMPTY: FunnelCounts = { leads: 0, called: 0, reached: 0, connected: 0, callback: 0, qualified: 0, paid: 0 }

function add(a: FunnelCounts, b: FunnelCounts): FunnelCounts {
  return {
    leads: a.leads + b.leads, called: a.called + b.called, reached: a.reached + b.reached, connected: a.connected + b.connected,
    callback: a.callback + b.callback, qualified: a.qualified + b.qualified, paid: a.paid + b.paid,
  }
}

export class ReportsQueries {
  constructor(private readonly db: ViewsDatabase) {}

  figures(accountId: string, period: Period): ReportFigures {
    const range = [accountId, period.from, period.to] as const
    const dayRows = statement(this.db, `SELECT day, source, leads, called, reached, connected, callback, qualified, paid FROM report_days
      WHERE account_id = ? AND day BETWEEN ? AND ?`).all(...range) as Array<FunnelCounts & { day: string; source: string }>
    const byDay = new Map<string, FunnelCounts>()
    const bySource = new Map<string, FunnelCounts>()
    let totals = EMPTY
    for (const row of dayRows) {
      byDay.set(row.day, add(byDay.get(row.day) ?? EMPTY, row))
      bySource.set(row.source, add(bySource.get(row.source) ?? EMPTY, row))
      totals = add(totals, row)
    }

    // Rows as arrays: a 90-day period of a big book reads thousands of (day, seconds) pairs.
    const speedRows = statement(this.db, 'SELECT day, seconds, leads FROM report_speed WHERE account_id = ? AND day BETWEEN ? AND ? ORDER BY day, seconds')
      .raw(true).all(...range) as Array<[string, number, number]>
    const speedByDay = new Map<string, Counted[]>()
    const overall = new Map<number, number>()
    for (const [day, seconds, leads] of speedRows) {
      let list = speedByDay.get(day)
      if (list === undefined) speedByDay.set(day, (list = []))
      list.push({ value: seconds, count: leads })
      overall.set(seconds, (overall.get(seconds) ?? 0) + leads)
    }
    const all = [...overall].map(([value, count]) => ({ value, count })).sort((a, b) => a.value - b.value)

    const days = daysOf(period).map((day): DayFigures => {
      const counts = byDay.get(day) ?? EMPTY
      const speed = speedByDay.get(day) ?? []
      return { day, ...counts, contactRate: rate(counts.reached, counts.leads), speedMedianSeconds: nearestRank(speed, 50), speedP90Seconds: nearestRank(speed, 90) }
    })
    const sources = [...bySource]
      .map(([source, c]): SourceFigures => ({ source, leads: c.leads, reached: c.reached, contactRate: rate(c.reached, c.leads) }))
      .filter((s) => s.leads > 0)
      .sort((a, b) => b.leads - a.leads || a.source.localeCompare(b.source))
    const speedDistribution = SPEED_BUCKETS.map((bucket, i): SpeedBucket => {
      const next = SPEED_BUCKETS[i + 1]?.from ?? null
      const leads = all.filter((c) => c.value >= bucket.from && (next === null || c.value < next)).reduce((sum, c) => sum + c.count, 0)
      return { label: bucket.label, fromSeconds: bucket.from, toSeconds: next, leads }
    })
    return {
      period,
      totals: { ...totals, contactRate: rate(totals.reached, totals.leads), speedMedianSeconds: nearestRank(all, 50), speedP90Seconds: nearestRank(all, 90) },
      days,
      sources,
      speedDistribution,
      answerRate: this.answerRate(accountId, period),
      payments: this.payments(accountId, period),
    }
  }

  private answerRate(accountId: string, period: Period): HourCell[] {
    const rows = statement(this.db, `SELECT weekday, hour, SUM(calls) AS calls, SUM(answered) AS answered FROM report_hours
      WHERE account_id = ? AND day BETWEEN ? AND ? GROUP BY weekday, hour`).all(accountId, period.from, period.to) as Array<{ weekday: number; hour: number; calls: number; answered: number }>
    const cells = new Map(rows.map((r) => [r.weekday * 24 + r.hour, r]))
    const grid: HourCell[] = []
    for (let weekday = 1; weekday <= 7; weekday++) {
      for (let hour = 0; hour < 24; hour++) {
        const cell = cells.get(weekday * 24 + hour)
        grid.push({ weekday, hour, calls: cell?.calls ?? 0, answered: cell?.answered ?? 0, answerRate: rate(cell?.answered ?? 0, cell?.calls ?? 0) })
      }
    }
    return grid
  }

  private payments(accountId: string, period: Period): ReportFigures['payments'] {
    const days = statement(this.db, `SELECT day, currency, payments, amount_cents AS amountCents FROM report_payments
      WHERE account_id = ? AND day BETWEEN ? AND ? ORDER BY day, currency`).all(accountId, period.from, period.to) as PaymentDay[]
    const totals = new Map<string, { currency: string; payments: number; amountCents: number }>()
    for (const d of days) {
      const t = totals.get(d.currency) ?? { currency: d.currency, payments: 0, amountCents: 0 }
      totals.set(d.currency, { currency: d.currency, payments: t.payments + d.payments, amountCents: t.amountCents + d.amountCents })
    }
    return { days, totals: [...totals.values()].sort((a, b) => a.currency.localeCompare(b.currency)) }
  }

  /** The sources the account's leads came with, for the Calls page's filter (most leads first). */
  sources(accountId: string): string[] {
    return (statement(this.db, "SELECT source FROM report_days WHERE account_id = ? AND source <> '' GROUP BY source ORDER BY SUM(leads) DESC, source LIMIT 200")
      .pluck().all(accountId) as string[])
  }
}
