/** Google Calendar's entry: the provider, and the consent steps the console route calls. */
export { createGoogleCalendar, type GoogleCalendarOptions } from './google-calendar.adapter.ts'
export {
  exchangeGoogleCode,
  googleConsentUrl,
  GoogleConsentError,
  type GoogleCodeExchange,
  type GoogleConsent,
  type GoogleConsentFailure,
  type GoogleConsentRequest,
  type GoogleGrant,
} from './google-consent.ts'
export { GOOGLE_CALENDAR_SCOPES, GOOGLE_ENDPOINTS, googleEndpointsAt, type GoogleEndpoints } from './google-client.ts'
