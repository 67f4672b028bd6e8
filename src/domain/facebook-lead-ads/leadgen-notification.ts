/**
 * Facebook's lead-ads webhook body, read: `{"object":"page","entry":[{"id":PAGE,"time":…,"changes":
 * [{"field":"leadgen","value":{"leadgen_id","page_id","form_id","ad_id","adgroup_id","created_time"}}]}]}`.
 * One notice per `leadgen` change; a change of another field, or one without a leadgen id Facebook
 * could have made (digits), is counted as skipped, never an error: Facebook would retry it for days.
 */
import { FACEBOOK_ID } from './facebook-page.events.ts'
import type { LeadgenNotice } from './facebook-lead.decider.ts'

export interface LeadgenNotification {
  /** `object` as sent: `page` for lead ads. */
  readonly object: string | null
  readonly notices: readonly LeadgenNotice[]
  /** Changes that were not a readable `leadgen` change. */
  readonly skipped: number
}

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null
}

/** An id as Facebook sends them (a string of digits, or a number in older payloads); null otherwise. */
function facebookId(value: unknown): string | null {
  const text = typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? String(value) : typeof value === 'string' ? value.trim() : null
  return text !== null && FACEBOOK_ID.test(text) ? text : null
}

/** `created_time`: Unix seconds (what lead ads send), or an ISO time. */
function createdTime(value: unknown): string | null {
  const ms = typeof value === 'number' ? value * 1000 : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) * 1000 : typeof value === 'string' ? Date.parse(value) : NaN
  return Number.isFinite(ms) && ms > 0 && ms < 8.64e15 ? new Date(ms).toISOString() : null
}

export function readLeadgenNotification(body: unknown): LeadgenNotification {
  const root = record(body)
  const object = typeof root?.['object'] === 'string' ? root['object'] : null
  const notices: LeadgenNotice[] = []
  let skipped = 0
  const entries = Array.isArray(root?.['entry']) ? (root['entry'] as unknown[]) : []
  for (const entry of entries) {
    const e = record(entry)
    const changes = Array.isArray(e?.['changes']) ? (e['changes'] as unknown[]) : []
    for (const change of changes) {
      const c = record(change)
      const value = record(c?.['value'])
      const leadgenId = facebookId(value?.['leadgen_id'])
      const pageId = facebookId(value?.['page_id']) ?? facebookId(e?.['id'])
      if (c?.['field'] !== 'leadgen' || value === null || leadgenId === null || pageId === null) {
        skipped++
        continue
      }
      notices.push({ leadgenId, pageId, formId: facebookId(value['form_id']), adId: facebookId(value['ad_id']), createdTime: createdTime(value['created_time']) })
    }
  }
  return { object, notices, skipped }
}
