/** The Cal.com calendar's entry. */
export { CALCOM_API_URL, createCalComCalendar, type CalComOptions } from './calcom-calendar.adapter.ts'
