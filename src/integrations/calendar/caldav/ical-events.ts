/**
 * The iCalendar side of CalDAV, through ical.js: which times an event keeps busy (recurrences expanded,
 * free and cancelled events left out), and the VCALENDAR a booking writes.
 */
import ICAL from 'ical.js'
import { DateTime, IANAZone } from 'luxon'
import type { CalendarEventDraft, Interval } from '../calendar.port.ts'

/** Every busy occurrence of the events in `ics` overlapping `range`; floating and all-day times read in `zone`. */
export function busyIntervals(ics: string, range: Interval, zone: string): Interval[] {
  const from = Date.parse(range.start)
  const to = Date.parse(range.end)
  const calendar = new ICAL.Component(ICAL.parse(ics))
  const components = calendar.getAllSubcomponents('vevent')
  const masters = components.filter((c) => !c.hasProperty('recurrence-id'))
  const out: Interval[] = []
  for (const master of masters) {
    const event = new ICAL.Event(master, { strictExceptions: false })
    for (const exception of components) {
      if (exception.hasProperty('recurrence-id') && exception.getFirstPropertyValue('uid') === event.uid) event.relateException(exception)
    }
    if (!event.isRecurring()) {
      const interval = occurrence(master, event.startDate, event.endDate, zone)
      if (interval && overlaps(interval, from, to)) out.push(interval)
      continue
    }
    const iterator = event.iterator()
    // Occurrences come in start order; past the range's end, none can overlap.
    for (let next = iterator.next(); next; next = iterator.next()) {
      const details = event.getOccurrenceDetails(next)
      const interval = occurrence(details.item.component, details.startDate, details.endDate, zone)
      if (interval === null) continue
      if (Date.parse(interval.start) >= to) break
      if (overlaps(interval, from, to)) out.push(interval)
    }
  }
  return out
}

function overlaps(interval: Interval, from: number, to: number): boolean {
  return Date.parse(interval.start) < to && Date.parse(interval.end) > from
}

/** The UTC interval one occurrence keeps busy, or null for a free (transparent) or cancelled one. */
function occurrence(component: ICAL.Component, start: ICAL.Time, end: ICAL.Time, fallbackZone: string): Interval | null {
  if (String(component.getFirstPropertyValue('transp') ?? '').toUpperCase() === 'TRANSPARENT') return null
  if (String(component.getFirstPropertyValue('status') ?? '').toUpperCase() === 'CANCELLED') return null
  const startZone = zoneOf(component, 'dtstart', start, fallbackZone)
  const endZone = component.hasProperty('dtend') ? zoneOf(component, 'dtend', end, fallbackZone) : startZone
  const startAt = instant(start, startZone)
  const endAt = instant(end, endZone)
  if (!(endAt > startAt)) return null
  return { start: new Date(startAt).toISOString(), end: new Date(endAt).toISOString() }
}

/** The zone a time is written in: UTC, its TZID when that is an IANA zone, else the calendar's. */
function zoneOf(component: ICAL.Component, name: string, time: ICAL.Time, fallbackZone: string): string {
  if (time.zone?.tzid === 'UTC') return 'UTC'
  const tzid = component.getFirstProperty(name)?.getParameter('tzid')
  return typeof tzid === 'string' && IANAZone.isValidZone(tzid) ? tzid : fallbackZone
}

function instant(time: ICAL.Time, zone: string): number {
  const local = { year: time.year, month: time.month, day: time.day }
  const at = time.isDate
    ? DateTime.fromObject(local, { zone })
    : DateTime.fromObject({ ...local, hour: time.hour, minute: time.minute, second: time.second }, { zone })
  return at.toMillis()
}

/**
 * When the event `uid` in `ics` is now (its master, not a recurrence's exception); null when the file
 * has no such event or the event is cancelled. Floating and all-day times are read in `zone`.
 */
export function eventTimes(ics: string, uid: string, zone: string): Interval | null {
  const calendar = new ICAL.Component(ICAL.parse(ics))
  const master = calendar.getAllSubcomponents('vevent').find((c) => !c.hasProperty('recurrence-id') && c.getFirstPropertyValue('uid') === uid)
  if (master === undefined) return null
  if (String(master.getFirstPropertyValue('status') ?? '').toUpperCase() === 'CANCELLED') return null
  const event = new ICAL.Event(master)
  const startZone = zoneOf(master, 'dtstart', event.startDate, zone)
  const endZone = master.hasProperty('dtend') ? zoneOf(master, 'dtend', event.endDate, zone) : startZone
  const start = instant(event.startDate, startZone)
  const end = instant(event.endDate, endZone)
  return { start: new Date(start).toISOString(), end: new Date(Math.max(end, start)).toISOString() }
}

/** The VCALENDAR for a booking's event, times in UTC. */
export function eventIcs(draft: CalendarEventDraft, stamp: Date): string {
  const event = new ICAL.Component('vevent')
  event.addPropertyWithValue('uid', draft.uid)
  event.addPropertyWithValue('dtstamp', utcTime(stamp))
  event.addPropertyWithValue('dtstart', utcTime(new Date(draft.start)))
  event.addPropertyWithValue('dtend', utcTime(new Date(draft.end)))
  event.addPropertyWithValue('summary', draft.summary)
  if (draft.description !== undefined) event.addPropertyWithValue('description', draft.description)
  const calendar = new ICAL.Component('vcalendar')
  calendar.addPropertyWithValue('version', '2.0')
  calendar.addPropertyWithValue('prodid', '-//Leadline//Appointments//EN')
  calendar.addSubcomponent(event)
  return calendar.toString() + '\r\n'
}

function utcTime(date: Date): ICAL.Time {
  return ICAL.Time.fromJSDate(date, true)
}

/** The TZID a calendar's `calendar-timezone` (a VTIMEZONE) names, when it is an IANA zone. */
export function calendarZone(vtimezone: string): string | null {
  const tzid = /^TZID:(.+)$/m.exec(vtimezone)?.[1]?.trim()
  return tzid !== undefined && IANAZone.isValidZone(tzid) ? tzid : null
}
