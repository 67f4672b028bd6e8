/** Every read model the service keeps, in the order a batch is applied to them. */
import { accountsProjection } from './accounts/accounts.projection.ts'
import { callsProjection } from './calls/calls.projection.ts'
import { claimsProjection } from './claims/claims.projection.ts'
import { inboundLeadsProjection } from './inbound-leads/inbound-leads.projection.ts'
import { paymentsProjection } from './payments/payments.projection.ts'
import { staleLeadsProjection } from './stale-leads/stale-leads.projection.ts'
import { usersProjection } from './users/users.projection.ts'
import { facebookLeadAdsProjection } from './facebook-lead-ads/facebook-lead-ads.projection.ts'
import { numbersProjection } from './numbers/numbers.projection.ts'
import { reportsProjection } from './reports/reports.projection.ts'
import { leadStatusProjection } from './lead-status/lead-status.projection.ts'
import { conversationsProjection } from './conversations/conversations.projection.ts'
import { appointmentTextsProjection } from './appointment-texts/appointment-texts.projection.ts'
import { appointmentsProjection } from './appointments/appointments.projection.ts'
import { calendarSyncProjection } from './calendar-sync/calendar-sync.projection.ts'

export const PROJECTIONS = [accountsProjection, inboundLeadsProjection, callsProjection, staleLeadsProjection, paymentsProjection, usersProjection, claimsProjection, facebookLeadAdsProjection, numbersProjection, reportsProjection, leadStatusProjection, conversationsProjection, appointmentTextsProjection, appointmentsProjection, calendarSyncProjection] as const
