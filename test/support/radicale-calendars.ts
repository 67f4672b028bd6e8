/**
 * What the owner's own calendar app does on the Radicale the tests start (radicale.ts): make a calendar,
 * put in an event of its own, and list the event files the server holds. Raw CalDAV, not our adapter.
 */
import type { Radicale } from './radicale.ts'

export interface OwnerCalendarApp {
  /** A new calendar collection in `zone`; its URL. */
  newCalendar(zone?: string): Promise<string>
  /** Puts an event (VEVENT property lines) at `<calendar>/<name>.ics`, creating or replacing it. */
  ownerEvent(calendarUrl: string, name: string, lines: string[], uid?: string): Promise<void>
  /** The event file names the server holds in a calendar. */
  filesIn(calendarUrl: string): Promise<string[]>
  /** The owner's `authorization` header, for raw requests. */
  readonly basic: { readonly authorization: string }
}

export function ownerCalendarApp(radicale: Radicale): OwnerCalendarApp {
  const basic = { authorization: `Basic ${Buffer.from(`${radicale.username}:${radicale.password}`).toString('base64')}` }
  let calendars = 0
  return {
    basic,
    async newCalendar(zone = 'America/New_York') {
      const url = `${radicale.url}${radicale.username}/cal-${++calendars}/`
      const body = `<?xml version="1.0" encoding="utf-8"?>
<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop>
<D:displayname>Jobs ${calendars}</D:displayname>
<C:calendar-timezone>BEGIN:VCALENDAR&#13;
BEGIN:VTIMEZONE&#13;
TZID:${zone}&#13;
END:VTIMEZONE&#13;
END:VCALENDAR</C:calendar-timezone>
</D:prop></D:set></C:mkcalendar>`
      const response = await fetch(url, { method: 'MKCALENDAR', headers: { ...basic, 'content-type': 'application/xml' }, body })
      if (response.status !== 201) throw new Error(`MKCALENDAR ${response.status}: ${await response.text()}`)
      return url
    },
    async ownerEvent(calendarUrl, name, lines, uid = `${name}@owner`) {
      const ics = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Owner//App//EN', 'BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20260101T000000Z', ...lines, 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n')
      const response = await fetch(`${calendarUrl}${name}.ics`, { method: 'PUT', headers: { ...basic, 'content-type': 'text/calendar' }, body: ics })
      if (response.status !== 201 && response.status !== 204) throw new Error(`PUT ${response.status}: ${await response.text()}`)
    },
    async filesIn(calendarUrl) {
      const response = await fetch(calendarUrl, { method: 'PROPFIND', headers: { ...basic, depth: '1' } })
      return [...(await response.text()).matchAll(/<href>([^<]+\.ics)<\/href>/g)].map((m) => decodeURIComponent(m[1]!.split('/').pop()!)).sort()
    },
  }
}
