/** The CalDAV calendar's entry. */
export * from './caldav-calendar.adapter.ts'
