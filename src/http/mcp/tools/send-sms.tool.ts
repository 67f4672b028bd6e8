/** `send_sms` (write): texts one lead of the account from its own number or Messaging Service, under the calling rules, at most once per key. */
import { z } from 'zod'
import { sendSms } from '../../../commands/send-sms.command.ts'
import { MAX_TEXT_CHARACTERS, OPT_OUT_LINE } from '../../../domain/lead/texts/text-body.ts'
import { contactCheckOf, contactCheckOutput } from '../contact-check.ts'
import { leadReference, leadStreamOf, requireOneLeadReference } from '../lead-view.ts'
import { defineWriteTool } from '../tool.ts'

export const tool = defineWriteTool({
  name: 'send_sms',
  title: 'Send a text',
  summary: 'Text a lead, under the same rules as a call',
  description:
    `Texts one lead of this account from the account's own number (or through its Twilio Messaging Service, when one is set). Name the lead by phone (any formatting) or lead_id: they must already be a lead of this account (lead_not_found otherwise). The text ends with "${OPT_OUT_LINE}" unless the body's last line already is an opt-out line ("Text STOP to unsubscribe"); a STOP mentioned anywhere else does not count. Refused, with error.data.code, when the lead is do-not-call (do_not_call, e.g. after they texted STOP) or its number opted out by text (suppressed), outside the account's calling hours or the lead's own local hours (outside_calling_hours / outside_lead_hours, with error.data.next_allowed_at, and error.data.rule naming the calling rule, e.g. "FL 501.616"), when the number is not one the account may contact (phone_not_valid, number_type_not_allowed, country_not_allowed), when a state's cap of contacts in 24 hours is reached (daily_limit: texts count with calls there; the account's own call limit does not count texts), when the account has no caller id (no_caller_id), or when the carrier refuses (carrier_error). The same idempotency_key never sends a second text. Use dry_run: true first to see the exact text, how many SMS segments it is, whether it would go out now (and if not, why and when it next may), and whether it goes through a Messaging Service or from the bare caller ID, which carriers may filter.`,
  scope: 'write',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  input: {
    ...leadReference,
    body: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(MAX_TEXT_CHARACTERS, `must be at most ${MAX_TEXT_CHARACTERS} characters`)
      .describe(`What to say, 1 to ${MAX_TEXT_CHARACTERS} characters with the opt-out line; over 160 GSM-7 characters (70 with any other character, such as an emoji) it goes as several segments, each billed`),
  },
  check: requireOneLeadReference,
  output: z.object({
    status: z.enum(['sent', 'would_send', 'would_not_send']).describe('sent: the carrier accepted the text; would_send / would_not_send: a dry run'),
    text_id: z.string().nullable().describe('txt_…; null for a dry run'),
    message_id: z.string().nullable().describe("The carrier's message id"),
    lead_id: z.string(),
    from: z.string().nullable().describe("The account's caller id (E.164); with a Messaging Service, the service picks the sending number"),
    to: z.string().describe("The lead's number (E.164)"),
    body: z.string().describe('The text as sent (or as it would be), opt-out line included'),
    segments: z.number().int().describe('How many SMS segments the carrier splits it into (each is billed)'),
    encoding: z.enum(['GSM-7', 'UCS-2']).describe('GSM-7: 160 characters in one segment, 153 a segment when split; UCS-2 (any character outside GSM-7): 70, then 67'),
    messaging_service: z.string().nullable().describe('The Twilio Messaging Service (MG…) the text goes through; null: from the bare caller ID'),
    sender: z.string().describe('How the text leaves, in a sentence: through the Messaging Service, or from the bare caller ID, which carriers may filter'),
    carrier: z.string().describe('twilio, or simulated (no text reaches a phone)'),
    check: contactCheckOutput(
      z.number().int().nullable().describe("A state's cap of calls and texts to one person in any 24 hours (e.g. 3 in Florida); null when no state's cap reaches the lead"),
    ),
    dry_run: z.boolean(),
  }),
  async run(args, context) {
    const result = await sendSms(
      context.services,
      context.account,
      leadStreamOf(context, args),
      { body: args.body, idempotencyKey: args.idempotency_key, dryRun: args.dry_run },
      context.command,
    )
    return {
      status: result.status,
      text_id: result.textId,
      message_id: result.messageId,
      lead_id: result.leadId,
      from: result.from,
      to: result.to,
      body: result.body,
      segments: result.segments,
      encoding: result.encoding,
      messaging_service: result.sender.messagingService,
      sender: result.sender.message,
      carrier: result.carrier,
      check: contactCheckOf(result.check),
      dry_run: result.dryRun,
    }
  },
})
