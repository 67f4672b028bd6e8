/**
 * The iCalendar side of CalDAV, through ical.js: which times an event keeps busy (recurrences expanded,
 * free and cancelled events left out), and the VCALENDAR a booking writes.
 */
import ICAL from 'ical.js'
import { DateTime, IANAZone } from 'luxon'
import type { CalendarEventDraft, Interval } from '../calendar.port.ts'

/** A calendar object's events, parsed once (recurrences related to their masters), to be read for any range. */
export interface ParsedEvents {
  readonly events: readonly { readonly event: ICAL.Event; readonly master: ICAL.Component }[]
}

/** Parses one calendar object (a `.ics`): the costly part of reading busy times, kept by the adapter per ETag. */
export function parseEvents(ics: string): ParsedEvents {
  const calendar = new ICAL.Component(ICAL.parse(ics))
  const components = calendar.getAllSubcomponents('vevent')
  const events = components
    .filter((c) => !c.hasProperty('recurrence-id'))
    .map((master) => {
      const event = new ICAL.Event(master, { strictExceptions: false })
      for (const exception of components) {
        if (exception.hasProperty('recurrence-id') && exception.getFirstPropertyValue('uid') === event.uid) event.relateException(exception)
      }
      return { event, master }
    })
  return { events }
}

/** Every busy occurrence of a calendar object's events overlapping `range`; floating and all-day times read in `zone`. */
export function busyIntervals(parsed: ParsedEvents, range: Interval, zone: string): Interval[] {
  const from = Date.parse(range.start)
  const to = Date.parse(range.end)
  const out: Interval[] = []
  for (const { event, master } of parsed.events) {
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
  return typeof tzid === 'string' && isKnownZone(tzid) ? tzid : fallbackZone
}

// luxon's isValidZone builds an Intl.DateTimeFormat on every call; a calendar names a handful of zones
// across all its events, so each name's answer is kept (bounded, against a calendar of made-up TZIDs).
const KNOWN_ZONES = new Map<string, boolean>()

function isKnownZone(tzid: string): boolean {
  let known = KNOWN_ZONES.get(tzid)
  if (known === undefined) {
    known = IANAZone.isValidZone(tzid)
    if (KNOWN_ZONES.size >= 1000) KNOWN_ZONES.clear()
    KNOWN_ZONES.set(tzid, known)
  }
  return known
}

function instant(time: ICAL.Time, zone: string): number {
  const hour = time.isDate ? 0 : time.hour
  const minute = time.isDate ? 0 : time.minute
  // The zone's offset at a wall-clock minute, as luxon reads it (gaps and repeated hours included), kept:
  // a month of events shares a few hundred such minutes, and luxon's answer costs tens of microseconds.
  const key = `${zone} ${time.year}-${time.month}-${time.day} ${hour}:${minute}`
  let offsetMs = OFFSETS.get(key)
  if (offsetMs === undefined) {
    const at = DateTime.fromObject({ year: time.year, month: time.month, day: time.day, hour, minute }, { zone })
    offsetMs = Date.UTC(time.year, time.month - 1, time.day, hour, minute) - at.toMillis()
    if (OFFSETS.size >= 100_000) OFFSETS.clear()
    OFFSETS.set(key, offsetMs)
  }
  return Date.UTC(time.year, time.month - 1, time.day, hour, minute, time.isDate ? 0 : time.second) - offsetMs
}

const OFFSETS = new Map<string, number>()

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
  return tzid !== undefined && isKnownZone(tzid) ? tzid : null
}
