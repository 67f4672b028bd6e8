/**
 * The lead webhook's schemas: what it validates, what its handler is typed by, and what /docs/openapi.json
 * shows integration builders. The body is loose on purpose (spec §2.1): any object of fields, matched by name
 * loosely, so the schema checks only that it is one and documents the names intake recognises.
 */
import { z } from 'zod'
import { CORE_FIELD_ALIASES, type CoreField } from '../../domain/lead/intake/field-aliases.ts'
import { errorBodySchema } from '../errors.ts'

const FIELD_MEANINGS: Readonly<Record<CoreField, string>> = {
  fullName: 'Full name (string)',
  firstName: 'First name (string)',
  lastName: 'Last name (string)',
  phone: 'Phone, required: digits in any formatting; the lead is the last ten digits within the account',
  email: 'Email (string)',
  state: 'State (string)',
  age: 'Age in whole years (number or string)',
  dob: 'Date of birth (a date); gives the age when no age is sent',
  source: 'Lead source, the campaign (string; recommended)',
  vendor: 'Vendor (string)',
  leadDate: 'Lead date (a date)',
  doNotCall: 'Do-not-call flag: `1`, `true`, `yes`, `y` (or `on`) flags the lead, and it is never dialed',
  city: 'City (string)',
  zip: 'ZIP or postal code (string)',
  address: 'Street address (string)',
}

/** The example integration builders see first: docs/webhook.md's first lead, sent as JSON. */
export const WEBHOOK_EXAMPLE = {
  name: 'Jane Doe',
  phone: '(312) 555-0142',
  email: 'jane@example.com',
  state: 'Illinois',
  source: 'Spring promo',
} as const

/**
 * One property per recognised field, named by its first alias; the description lists the others. Meta, not
 * zod shape: a shape would reorder the fields, and when several aliases are sent the first one sent wins.
 */
const recognisedFields = Object.fromEntries(
  (Object.entries(CORE_FIELD_ALIASES) as [CoreField, readonly string[]][]).map(([field, aliases]) => [
    aliases[0],
    { description: `${FIELD_MEANINGS[field]}. Also accepted as: ${aliases.slice(1).map((alias) => `\`${alias}\``).join(', ') || 'no other name'}.` },
  ]),
)

/**
 * JSON object, form fields, multipart fields or XML: what the parsers make of each is one object of fields. A
 * check of its type, not a walk: a record schema would copy every field of a 64 KiB body on the hot path, and
 * the values are intake's to read (src/domain/lead/intake/). The JSON Schema is spelled out in the meta.
 */
export const leadFieldsSchema = z.custom<Record<string, unknown>>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  { message: 'the body must be an object of fields' },
).meta({
  type: 'object',
  additionalProperties: {},
  title: 'Lead fields',
  description:
    'Any fields, as a JSON object (`application/json`), form fields (`application/x-www-form-urlencoded`, `multipart/form-data`) ' +
    'or XML (`application/xml`, `text/xml`). Names are matched loosely: case is ignored, spaces and underscores are interchangeable, ' +
    'and a trailing `*`, `:`, `?` or `#` does not count. A phone under one of its names is required; every other field is optional, ' +
    'and fields intake does not recognise are kept as extra fields. Lead-ads payloads (Google, Facebook) are read as well. See docs/webhook.md#field-names.',
  properties: recognisedFields,
})

/**
 * fastify hands the validator a missing body as null, so null passes here: the route tells no body (400 `phone
 * required`) from a JSON null (400 `body must be an object`) by the content type.
 */
export const webhookBodySchema = leadFieldsSchema.nullable().meta({ examples: [WEBHOOK_EXAMPLE] })

export const webhookQuerySchema = z.looseObject({
  source: z.string().optional().describe('Names the lead source whose field map reads the body (docs/lead-sources.md)'),
})

export const leadAcceptedSchema = z.object({
  leadId: z.string().describe('The lead\'s id: the same person keeps the same id'),
  created: z.boolean().describe('`true` for a new lead (201), `false` for an update (200)'),
  phone: z.string().describe('The number in E.164 form, as it will be dialed'),
  lists: z.array(z.string()).readonly().describe('The lists the lead is in'),
  warnings: z.array(z.object({ code: z.string(), field: z.string(), message: z.string() })).readonly()
    .describe('What intake fixed, dropped or could not read without refusing the lead (docs/webhook.md#warnings)'),
})

export const webhookResponses = {
  200: leadAcceptedSchema.describe('An existing lead was updated'),
  201: leadAcceptedSchema.describe('A new lead'),
  400: errorBodySchema.describe('`phone required`, `phone invalid`, `body must be an object`, `invalid json` or `invalid request`'),
  401: errorBodySchema.describe('`invalid token`: the webhook token is missing or wrong; the body was not read'),
  413: errorBodySchema.describe('`payload too large`: more than 64 KiB'),
  415: errorBodySchema.describe('`unsupported media type`: not JSON, form fields or XML, or a compressed body'),
  429: errorBodySchema.describe('`rate limited`: the token\'s rate limit; Retry-After says when to try again'),
  503: errorBodySchema.describe('`store unavailable`: nothing was recorded; retry'),
} as const
